import { describe, expect, it } from "vitest";
import { AuthenticateRequestSchema, Protocol, SessionOpenedSchema, create } from "@iot/proto";
import { sessionOpenedValue, toAuthenticateRequest } from "./grpc-convert.js";
import type { DeviceCredentials } from "./registry-client.js";

describe("the message literals of the registry client", () => {
  it("make every credential kind's AuthenticateRequest as protobuf-es's create does", () => {
    const kinds: DeviceCredentials[] = [
      { kind: "token", clientId: "c", username: "u", token: "t" },
      { kind: "certificate", clientId: "c", commonName: "cn", fingerprint: "ff" },
      { kind: "lwm2m", endpoint: "ep" },
      { kind: "lora", devEui: "00aa", devAddr: "0102" },
      { kind: "lora", devEui: "00aa", devAddr: "0102", gatewayEui: "gw" },
      { kind: "modbus", gatewayDeviceId: "g", index: 3, gatewayUsername: "gu", gatewayToken: "gt" },
    ];
    for (const c of kinds) {
      const { kind, ...value } = c;
      const made = create(AuthenticateRequestSchema, {
        protocol: Protocol.MQTT,
        credentials: { kind: { case: kind, value } as never },
        clientIp: "10.0.0.1",
        adapterInstanceId: "mqtt-1",
      });
      expect(toAuthenticateRequest("mqtt", c, "10.0.0.1", "mqtt-1")).toStrictEqual(made);
    }
  });

  it("make a SessionOpened as protobuf-es's create does", () => {
    const live = {
      session: {
        sessionId: "s",
        device: { deviceIntId: 9, tenantId: "t1" },
        credentialStamp: "t:x",
      },
      info: { clientIp: "10.0.0.2", keepAlive: 30, sleeping: true },
      openedAtMs: 1_700_000_000_000,
    };
    expect(sessionOpenedValue(live as never)).toStrictEqual(
      create(SessionOpenedSchema, {
        sessionId: "s",
        deviceIntId: 9n,
        clientIp: "10.0.0.2",
        keepAlive: 30,
        openedAtMs: 1_700_000_000_000n,
        tenantId: "t1",
        credentialStamp: "t:x",
        sleeping: true,
      }),
    );
  });
});
