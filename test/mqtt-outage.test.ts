import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable, stopProcess } from "../scripts/fleet.js";
import { startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

describe("a central node restart under a connected device", () => {
  let f: RestartableFleet;
  beforeAll(async () => {
    f = await startRestartableFleet();
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it("keeps devices on every listener connected, holds their QoS 1 acks, and stores every message exactly once after the restart", async () => {
    const productID = (await f.api("POST", "/products", { productName: "outage", cloudProtocol: 1 })).body.productID;
    const newDevice = async (deviceName: string, extra: Record<string, unknown> = {}) =>
      (
        await f.api("POST", "/devices", {
          productID,
          deviceName,
          deviceType: 1,
          upLinkSystem: 1,
          authType: 1,
          ...extra,
        })
      ).body;
    const cert = (await f.api("POST", "/certs", { name: "outage-cert", enable: 1 })).body;
    const ca = cert.root.content as string;
    const base: IClientOptions = { reconnectPeriod: 0, keepalive: 30, protocolVersion: 4 };
    const token = (d: { deviceID: string; deviceUsername: string; token: string }) => ({
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    });
    const tcp = await newDevice("over-tcp");
    const tls = await newDevice("over-tls");
    const ws = await newDevice("over-ws");
    const mtls = await newDevice("over-mtls", { authType: 2, certs: [cert.id] });
    const devices: Array<[{ id: number }, MqttClient]> = [
      [tcp, await mqtt.connectAsync(reachable(f.adapter.urls.mqtt!), { ...base, ...token(tcp) })],
      [tls, await mqtt.connectAsync(reachable(f.adapter.urls.mqtts!), { ...base, ...token(tls), ca })],
      [ws, await mqtt.connectAsync(reachable(f.adapter.urls.ws!), { ...base, ...token(ws) })],
      [
        mtls,
        await mqtt.connectAsync(reachable(f.adapter.urls.mqttss!), {
          ...base,
          clientId: mtls.deviceID,
          ca,
          cert: cert.cert.content,
          key: cert.key.content,
        }),
      ],
    ];
    let closed = 0;
    for (const [, c] of devices) c.on("close", () => closed++);
    try {
      for (const [, c] of devices) await c.publishAsync("t", "before", { qos: 1 });
      expect(await stopProcess(f.central), f.central.errors.join("\n")).toBe(0);

      // The registry is away: the adapter keeps the sessions and holds the PUBACKs.
      let acked = 0;
      const during = devices.flatMap(([, c]) =>
        Array.from({ length: 5 }, (_, i) => c.publishAsync("t", `during-${i}`, { qos: 1 }).then(() => acked++)),
      );
      await quietFor(1500, "no PUBACK comes while the registry is away");
      expect(acked).toBe(0);
      expect(closed).toBe(0);

      await f.startCentral();
      await Promise.all(during);
      for (const [, c] of devices) await c.publishAsync("t", "after", { qos: 1 });
      for (const [d] of devices) {
        const events = (await f.api("GET", `/devices/${d.id}/events?_limit=100`)).body;
        const payloads = events.items.map((e: { payload: string }) => e.payload).sort();
        expect(payloads).toEqual(["after", "before", "during-0", "during-1", "during-2", "during-3", "during-4"]);
        expect(events.meta.count).toBe(7);
        expect((await f.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      }
      expect(closed).toBe(0);
    } finally {
      for (const [, c] of devices) await c.endAsync();
    }
  });
});
