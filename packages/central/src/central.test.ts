import { describe, expect, it } from "vitest";
import {
  AuthenticateRequestSchema,
  AuthResult,
  DownlinkResultSchema,
  DownlinkStatus,
  Protocol,
  create,
  grpc,
} from "@iot/proto";
import { centralUnderTest } from "./test-central.js";

const { api, device, authenticate, openStream, newSession } = centralUnderTest();

describe("central node over gRPC", () => {
  it("refuses a wrong token and records a connect log with status 2", async () => {
    const res = await authenticate(device.deviceUsername, "wrong-token");
    expect(res.result).toBe(AuthResult.BAD_CREDENTIALS);
    const logs = await api("GET", `/devices/${device.id}/connect_logs`);
    expect(logs.body.items[0]).toMatchObject({ connectStatus: 2, IP: "10.0.0.9", deviceID: device.deviceID });
  });

  it("refuses a client id that is not the device's deviceID", async () => {
    expect((await authenticate(device.deviceUsername, device.token, "someone-else")).result).toBe(
      AuthResult.NOT_ALLOWED,
    );
  });

  it("authenticates, opens a session, stores uplinks once and acks them after the write", async () => {
    const auth = await authenticate(device.deviceUsername, device.token, device.deviceID);
    expect(auth.result).toBe(AuthResult.OK);
    expect(auth.device?.mountpoint).toBe(`d/${device.id}/`);
    const s = openStream();
    s.send({
      case: "hello",
      value: {
        $typeName: "iot.registry.v1.Hello",
        instanceId: "mqtt-test-1",
        protocol: Protocol.MQTT,
        version: "t",
        sessions: [],
        downlinkBatches: false,
      },
    });
    expect((await s.next("helloAck")).nodeId).toMatch(/^central-/);
    const tenantId = auth.device!.tenantId;
    s.send({
      case: "sessionOpened",
      value: {
        $typeName: "iot.registry.v1.SessionOpened",
        sessionId: auth.sessionId,
        deviceIntId: BigInt(device.id),
        clientIp: "10.0.0.9",
        keepAlive: 30,
        openedAtMs: BigInt(Date.now()),
        tenantId,
        credentialStamp: auth.credentialStamp,
        sleeping: false,
      },
    });
    const uplink = (seq: number) => ({
      case: "uplink" as const,
      value: {
        $typeName: "iot.registry.v1.Uplink" as const,
        seq: BigInt(seq),
        sessionId: auth.sessionId,
        deviceIntId: BigInt(device.id),
        topic: "telemetry",
        payload: Buffer.from(`{"t":${seq}}`),
        clientIp: "10.0.0.9",
        receivedAtMs: BigInt(Date.now()),
        qos: 1,
        tenantId,
        gatewayDeviceIntId: 0n,
        metadata: "",
        resendId: "",
        maybeResend: false,
        retain: false,
      },
    });
    s.send(uplink(1));
    s.send(uplink(2));
    const acked = new Set<bigint>();
    while (acked.size < 2) for (const q of (await s.next("uplinkAck")).seqs) acked.add(q);
    const events = await api("GET", `/devices/${device.id}/events`);
    expect(events.body.meta.count).toBe(2);
    expect(events.body.items[0]).toMatchObject({
      topic: "telemetry",
      payload: '{"t":2}',
      IP: "10.0.0.9",
      deviceID: device.deviceID,
    });
    // A replay of seq 1 (e.g. after a lost ack) is acked again but stored once.
    s.send(uplink(1));
    expect((await s.next("uplinkAck")).seqs).toEqual([1n]);
    expect((await api("GET", `/devices/${device.id}/events`)).body.meta.count).toBe(2);

    // The online state is stored by the connectivity writer's next batch (it is not on the uplink's path).
    await expect
      .poll(async () => (await api("GET", `/devices/${device.id}`)).body)
      .toMatchObject({ deviceStatus: 1, clientIP: "10.0.0.9", keepAlive: 30 });
    const health = (await api("GET", "/health")).body;
    expect(health.adapters).toEqual([
      expect.objectContaining({ instance: "mqtt-test-1", protocol: 1, connectedDevices: 1 }),
    ]);

    // A command reaches the adapter and its result settles the control log.
    const pub = await api("POST", "/device_publish", { deviceID: device.deviceID, payload: "on" });
    expect(pub.body.publishStatus).toBe("1");
    const downlink = await s.next("downlink");
    expect(downlink).toMatchObject({ topic: "inbox", qos: 1, deviceIntId: BigInt(device.id) });
    expect(Buffer.from(downlink.payload).toString()).toBe("on");
    s.send({
      case: "downlinkResult",
      value: create(DownlinkResultSchema, { downlinkId: downlink.id, status: DownlinkStatus.DELIVERED }),
    });
    await expect
      .poll(async () => (await api("GET", `/devices/${device.id}/control_logs`)).body.items[0].publishStatus)
      .toBe(2);

    s.send({
      case: "sessionClosed",
      value: {
        $typeName: "iot.registry.v1.SessionClosed",
        sessionId: auth.sessionId,
        deviceIntId: BigInt(device.id),
        reason: "bye",
        closedAtMs: BigInt(Date.now()),
        tenantId,
      },
    });
    await expect.poll(async () => (await api("GET", `/devices/${device.id}`)).body.deviceStatus).toBe(0);
    const logs = (await api("GET", `/devices/${device.id}/connect_logs`)).body.items.map(
      (l: { connectStatus: number }) => l.connectStatus,
    );
    expect(logs.slice(0, 2)).toEqual([0, 1]);
    s.call.end();
  });

  it("opens every session of a SessionOpenedBatch, in order, to an adapter its HelloAck told it takes them", async () => {
    const sessions = [await newSession("batch-open-a", "10.2.2.1"), await newSession("batch-open-b", "10.2.2.2")];
    const s = openStream();
    s.send({
      case: "hello",
      value: {
        $typeName: "iot.registry.v1.Hello",
        instanceId: "mqtt-opened-batch",
        protocol: Protocol.MQTT,
        version: "t",
        sessions: [],
        downlinkBatches: false,
      },
    });
    expect((await s.next("helloAck")).sessionOpenedBatches).toBe(true);
    s.send({
      case: "sessionOpenedBatch",
      value: { $typeName: "iot.registry.v1.SessionOpenedBatch", sessions: sessions.map((x) => x.opened) },
    });
    for (const [i, { d }] of sessions.entries()) {
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      expect((await api("GET", `/devices/${d.id}`)).body.clientIP).toBe(`10.2.2.${i + 1}`);
      await expect
        .poll(async () =>
          (await api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
            (l: { connectStatus: number }) => l.connectStatus,
          ),
        )
        .toEqual([1]);
    }
    s.call.end();
  });

  it("answers an AuthenticateCall on the stream as AuthenticateBatch would, in request order, under the call's id", async () => {
    const s = openStream();
    s.send({
      case: "hello",
      value: {
        $typeName: "iot.registry.v1.Hello",
        instanceId: "mqtt-stream-auth",
        protocol: Protocol.MQTT,
        version: "t",
        sessions: [],
        downlinkBatches: false,
      },
    });
    expect((await s.next("helloAck")).streamAuthentication).toBe(true);
    const request = (token: string, clientIp: string) =>
      create(AuthenticateRequestSchema, {
        protocol: Protocol.MQTT,
        clientIp,
        adapterInstanceId: "mqtt-stream-auth",
        credentials: {
          kind: { case: "token", value: { clientId: device.deviceID, username: device.deviceUsername, token } },
        },
      });
    s.send({
      case: "authenticate",
      value: {
        $typeName: "iot.registry.v1.AuthenticateCall",
        id: 77n,
        requests: [request(device.token, "10.3.3.1"), request("wrong", "10.3.3.2")],
      },
    });
    const answer = await s.next("authenticateAnswer");
    expect(answer.id).toBe(77n);
    expect(answer.error).toBe("");
    expect(answer.responses.map((r) => r.result)).toEqual([AuthResult.OK, AuthResult.BAD_CREDENTIALS]);
    expect(answer.responses[0]!.device?.mountpoint).toBe(`d/${device.id}/`);
    expect(answer.responses[0]!.sessionId).not.toBe("");
    // The refusal is recorded as any failed authentication is.
    await expect
      .poll(async () => (await api("GET", `/devices/${device.id}/connect_logs`)).body.items[0])
      .toMatchObject({ connectStatus: 2, IP: "10.3.3.2" });
    // A call over the bound is answered with the reason, and the stream stays up.
    s.send({
      case: "authenticate",
      value: {
        $typeName: "iot.registry.v1.AuthenticateCall",
        id: 78n,
        requests: Array.from({ length: 1001 }, () => request("wrong", "10.3.3.3")),
      },
    });
    const refused = await s.next("authenticateAnswer");
    expect(refused).toMatchObject({ id: 78n, responses: [], error: "at most 1000 requests per call" });
    s.send({
      case: "authenticate",
      value: { $typeName: "iot.registry.v1.AuthenticateCall", id: 79n, requests: [request(device.token, "10.3.3.4")] },
    });
    expect((await s.next("authenticateAnswer")).responses.map((r) => r.result)).toEqual([AuthResult.OK]);
    s.call.end();
  });
  it("ends a stream whose first message is not Hello", async () => {
    const s = openStream();
    const status = new Promise<grpc.StatusObject>((resolve) => s.call.on("status", resolve));
    s.send({
      case: "downlinkResult",
      value: create(DownlinkResultSchema, { downlinkId: 1n, status: DownlinkStatus.SENT }),
    });
    expect((await status).code).toBe(grpc.status.FAILED_PRECONDITION);
  });
});
