import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdapterMessageSchema,
  AuthenticateRequestSchema,
  AuthResult,
  DownlinkStatus,
  Protocol,
  RegistryGrpcClient,
  create,
  grpc,
  type AdapterMessage,
  type AuthenticateResponse,
  type RegistryMessage,
} from "@iot/proto";
import { readCentralConfig } from "./config.js";
import { startCentral, type Central } from "./central.js";

let dir: string;
let central: Central;
let client: InstanceType<typeof RegistryGrpcClient>;
let api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
let device: { id: number; deviceID: string; deviceUsername: string; token: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "central-test-"));
  const config = readCentralConfig({
    IOT_DATA_DIR: dir,
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: "0",
    IOT_API_HOST: "127.0.0.1",
    IOT_ADMIN_PASSWORD: "pw-123456",
    IOT_SESSION_GRACE: "1",
  });
  central = await startCentral(config, pino({ level: "silent" }));
  client = new RegistryGrpcClient(`127.0.0.1:${central.grpcPort}`, grpc.credentials.createInsecure());
  let token = "";
  api = async (method, path, body) => {
    const res = await fetch(`http://127.0.0.1:${central.apiPort}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  token = (await api("POST", "/login", { username: "admin", password: "pw-123456" })).body.token;
  const product = (await api("POST", "/products", { productName: "p", cloudProtocol: 1 })).body;
  device = (
    await api("POST", "/devices", {
      productID: product.productID,
      deviceName: "d1",
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
    })
  ).body;
});

afterAll(async () => {
  client?.close();
  await central?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function authenticate(username: string, token: string, clientId = ""): Promise<AuthenticateResponse> {
  return new Promise((resolve, reject) =>
    (client as any).authenticate(
      create(AuthenticateRequestSchema, {
        protocol: Protocol.MQTT,
        clientIp: "10.0.0.9",
        adapterInstanceId: "test",
        credentials: { kind: { case: "token", value: { clientId, username, token } } },
      }),
      (err: Error | null, res: AuthenticateResponse) => (err ? reject(err) : resolve(res)),
    ),
  );
}

/** A Connect stream with a queue of what the registry sent. */
function openStream() {
  const call = (client as any).connect() as grpc.ClientDuplexStream<AdapterMessage, RegistryMessage>;
  const inbox: RegistryMessage[] = [];
  const waiters: Array<() => void> = [];
  call.on("data", (m: RegistryMessage) => {
    inbox.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  call.on("error", () => {});
  const send = (kind: AdapterMessage["kind"]) => call.write(create(AdapterMessageSchema, { kind }));
  const next = async <C extends RegistryMessage["kind"]["case"]>(kase: C, timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = inbox.findIndex((m) => m.kind.case === kase);
      if (i >= 0) return inbox.splice(i, 1)[0]!.kind.value as Extract<RegistryMessage["kind"], { case: C }>["value"];
      if (Date.now() > deadline) throw new Error(`no ${kase} within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, Math.max(0, deadline - Date.now()) + 1); // the deadline: fail then
        waiters.push(() => (clearTimeout(timer), r()));
      });
    }
  };
  return { call, send, next };
}

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
      value: {
        $typeName: "iot.registry.v1.DownlinkResult",
        downlinkId: downlink.id,
        status: DownlinkStatus.DELIVERED,
        message: "",
      },
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

  /** A new device, authenticated, and the SessionOpened an adapter would send for it. */
  async function newSession(name: string, clientIp: string) {
    const product = (await api("GET", "/products")).body.items[0];
    const d = (
      await api("POST", "/devices", {
        productID: product.productID,
        deviceName: name,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const auth = await authenticate(d.deviceUsername, d.token);
    const opened = {
      $typeName: "iot.registry.v1.SessionOpened" as const,
      sessionId: auth.sessionId,
      deviceIntId: BigInt(d.id),
      clientIp,
      keepAlive: 60,
      openedAtMs: BigInt(Date.now()),
      tenantId: auth.device!.tenantId,
      credentialStamp: auth.credentialStamp,
      sleeping: false,
    };
    return { d, opened };
  }

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

  describe("when an adapter's stream drops", () => {
    /** A new device with a session on adapter `instanceId`. */
    async function deviceOnAdapter(instanceId: string, name: string) {
      const { d, opened } = await newSession(name, "10.1.1.1");
      const s = openStream();
      s.send({
        case: "hello",
        value: {
          $typeName: "iot.registry.v1.Hello",
          instanceId,
          protocol: Protocol.MQTT,
          version: "t",
          sessions: [],
          downlinkBatches: false,
        },
      });
      await s.next("helloAck");
      s.send({ case: "sessionOpened", value: opened });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      s.call.cancel();
      return { d, opened };
    }
    const statuses = async (id: number) =>
      (await api("GET", `/devices/${id}/connect_logs`)).body.items.map(
        (l: { connectStatus: number }) => l.connectStatus,
      );
    const hello = (instanceId: string, sessions: unknown[], downlinkBatches = false) => {
      const s = openStream();
      s.send({
        case: "hello",
        value: {
          $typeName: "iot.registry.v1.Hello",
          instanceId,
          protocol: Protocol.MQTT,
          version: "t",
          sessions: sessions as never,
          downlinkBatches,
        },
      });
      return s;
    };

    /** Two devices on adapter `instanceId` (its Hello says whether it takes DownlinkBatch) get a group command. */
    async function groupCommandOn(instanceId: string, downlinkBatches: boolean) {
      const a = await deviceOnAdapter(instanceId, `${instanceId}-a`);
      const b = await deviceOnAdapter(instanceId, `${instanceId}-b`);
      const s = hello(instanceId, [a.opened, b.opened], downlinkBatches);
      const ack = await s.next("helloAck");
      const product = (await api("GET", "/products")).body.items[0];
      const group = (await api("POST", "/groups", { productID: product.productID, groupName: instanceId })).body;
      expect((await api("POST", `/groups/${group.id}/devices`, { ids: [a.d.id, b.d.id] })).status).toBeLessThan(300);
      const pub = await api("POST", "/group_publish", { groupID: group.groupID, payload: "all", needAck: 1 });
      expect(pub.status).toBe(201);
      return { s, ack, devices: [a.d.id, b.d.id].sort() };
    }

    it("sends a group command's downlinks as one DownlinkBatch to an adapter whose Hello takes them, and settles the DownlinkResultBatch it answers", async () => {
      const { s, ack, devices } = await groupCommandOn("mqtt-batch-1", true);
      expect(ack.downlinkResultBatches).toBe(true);
      const batch = await s.next("downlinkBatch");
      expect(batch.downlinks.map((d) => Number(d.deviceIntId)).sort()).toEqual(devices);
      expect(batch.downlinks.map((d) => Buffer.from(d.payload).toString())).toEqual(["all", "all"]);
      s.send({
        case: "downlinkResultBatch",
        value: {
          $typeName: "iot.registry.v1.DownlinkResultBatch",
          results: batch.downlinks.map((d) => ({
            $typeName: "iot.registry.v1.DownlinkResult" as const,
            downlinkId: d.id,
            status: DownlinkStatus.DELIVERED,
            message: "",
          })),
        },
      });
      for (const id of devices)
        await expect
          .poll(async () => (await api("GET", `/devices/${id}/control_logs`)).body.items[0].publishStatus)
          .toBe(2);
      s.call.end();
    });

    it("sends a group command's downlinks one Downlink each to an adapter whose Hello does not take batches", async () => {
      const { s, devices } = await groupCommandOn("mqtt-batch-2", false);
      const sent = [await s.next("downlink"), await s.next("downlink")];
      expect(sent.map((d) => Number(d.deviceIntId)).sort()).toEqual(devices);
      await expect(s.next("downlinkBatch", 300)).rejects.toThrow(/no downlinkBatch/);
      s.call.end();
    });

    it("keeps a device online without new logs when the adapter comes back listing its session", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-1", "kept");
      const s = hello("mqtt-back-1", [opened]);
      await s.next("helloAck");
      await quietFor(1500, "past the grace for the adapter's sessions");
      expect((await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      expect(await statuses(d.id)).toEqual([1]);
      s.call.end();
    });

    it("sends the tenant's uplink rate again to an adapter that comes back, as it may have changed meanwhile", async () => {
      const { opened } = await deviceOnAdapter("mqtt-rate-1", "rated");
      const tenant = (await api("GET", "/tenants")).body.items.find(
        (x: { tenantID: string }) => x.tenantID === opened.tenantId,
      );
      expect((await api("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 25 })).status).toBe(200);
      const s = hello("mqtt-rate-1", [opened]);
      await s.next("helloAck");
      expect(await s.next("tenantLimits")).toMatchObject({ tenantId: opened.tenantId, maxUplinkRate: 25 });
      // A live adapter gets a change pushed at once.
      expect((await api("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 0 })).status).toBe(200);
      expect(await s.next("tenantLimits")).toMatchObject({ tenantId: opened.tenantId, maxUplinkRate: 0 });
      s.call.end();
    });

    it("stores a device sleeping while the adapter says so, also when it comes back listing the session asleep", async () => {
      const { d, opened } = await deviceOnAdapter("lwm2m-q-1", "queue mode");
      const s = hello("lwm2m-q-1", [opened]);
      await s.next("helloAck");
      const state = (sleeping: boolean) => ({
        $typeName: "iot.registry.v1.SessionState" as const,
        sessionId: opened.sessionId,
        deviceIntId: opened.deviceIntId,
        tenantId: opened.tenantId,
        sleeping,
      });
      s.send({ case: "sessionState", value: state(true) });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(2);
      s.send({ case: "sessionState", value: state(false) });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      s.call.cancel();
      const back = hello("lwm2m-q-1", [{ ...opened, sleeping: true }]);
      await back.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(2);
      expect(await statuses(d.id)).toEqual([1]);
      back.call.end();
    });

    it("marks a device offline when the adapter comes back without its session", async () => {
      const { d } = await deviceOnAdapter("mqtt-back-2", "gone");
      const s = hello("mqtt-back-2", []);
      await s.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
      s.call.end();
    });

    /** An uplink of a re-announced session, as an adapter replays it. */
    const replayed = (opened: { sessionId: string; deviceIntId: bigint; tenantId: string }, seq: number) => ({
      case: "uplink" as const,
      value: {
        $typeName: "iot.registry.v1.Uplink" as const,
        seq: BigInt(seq),
        sessionId: opened.sessionId,
        deviceIntId: opened.deviceIntId,
        topic: "telemetry",
        payload: Buffer.from("while away"),
        clientIp: "10.1.1.1",
        receivedAtMs: BigInt(Date.now()),
        qos: 1,
        tenantId: opened.tenantId,
        gatewayDeviceIntId: 0n,
        metadata: "",
        resendId: "",
        maybeResend: false,
      },
    });

    it("kicks a re-announced session whose device was blocked while the adapter was away, storing none of its uplinks", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-3", "blocked-away");
      expect((await api("PUT", `/devices/${d.id}`, { ...d, blocked: 1 })).status).toBe(200);
      const s = hello("mqtt-back-3", [opened]);
      await s.next("helloAck");
      const kick = await s.next("kick");
      expect(kick).toMatchObject({ deviceIntId: BigInt(d.id), reason: "device blocked" });
      s.send(replayed(opened, 1));
      const ack = await s.next("uplinkAck");
      expect(ack.seqs).toEqual([]);
      expect(ack.rejected).toEqual([expect.objectContaining({ seq: 1n, reason: "session revoked: device blocked" })]);
      expect((await api("GET", `/devices/${d.id}/events`)).body.meta.count).toBe(0);
      s.call.end();
    });

    it("kicks a re-announced session whose token changed while the adapter was away, and keeps an unchanged one", async () => {
      const changed = await deviceOnAdapter("mqtt-back-4", "rekeyed");
      const unchanged = await deviceOnAdapter("mqtt-back-4", "untouched");
      await api("PUT", `/devices/${changed.d.id}`, { ...changed.d, token: "a-brand-new-token" });
      const s = hello("mqtt-back-4", [changed.opened, unchanged.opened]);
      await s.next("helloAck");
      expect(await s.next("kick")).toMatchObject({
        deviceIntId: BigInt(changed.d.id),
        reason: "device credentials changed",
      });
      s.send(replayed(unchanged.opened, 1));
      expect((await s.next("uplinkAck")).seqs).toEqual([1n]);
      await expect.poll(async () => (await api("GET", `/devices/${unchanged.d.id}/events`)).body.meta.count).toBe(1);
      await expect.poll(async () => (await api("GET", `/devices/${unchanged.d.id}`)).body.deviceStatus).toBe(1);
      s.call.end();
    });

    it("pushes each re-announced session its device's current policies and proxy subscriptions", async () => {
      const ruled = await deviceOnAdapter("mqtt-back-6", "ruled-away");
      const subscribed = await deviceOnAdapter("mqtt-back-6", "subscribed-away");
      const rule = (await api("POST", "/policies", { name: "away-deny", topic: "secret/#", access: 3, allow: 0 })).body;
      expect((await api("POST", `/devices/${ruled.d.id}/policies`, { ids: [rule.id] })).status).toBe(201);
      const sub = { topic: "config/#", qos: 1 };
      expect((await api("POST", `/devices/${subscribed.d.id}/subscriptions`, sub)).status).toBe(201);
      const s = hello("mqtt-back-6", [ruled.opened, subscribed.opened]);
      await s.next("helloAck");
      const policies = new Map<bigint, string[]>();
      const subscriptions = new Map<bigint, string[]>();
      for (let i = 0; i < 2; i++) {
        const p = await s.next("policyUpdate");
        policies.set(
          p.deviceIntId,
          p.policies.map((r) => r.topic),
        );
        const u = await s.next("subscriptionUpdate");
        subscriptions.set(
          u.deviceIntId,
          u.subscriptions.map((x) => x.topic),
        );
      }
      expect(policies).toEqual(
        new Map([
          [BigInt(ruled.d.id), ["secret/#"]],
          [BigInt(subscribed.d.id), []],
        ]),
      );
      expect(subscriptions).toEqual(
        new Map([
          [BigInt(ruled.d.id), []],
          [BigInt(subscribed.d.id), ["config/#"]],
        ]),
      );
      s.call.end();
    });

    it("takes a device offline when a new stream of the same adapter instance no longer lists its session", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-5", "replaced");
      // The first stream is still attached when the instance's next one says Hello without the session.
      const first = hello("mqtt-back-5", [opened]);
      await first.next("helloAck");
      const second = hello("mqtt-back-5", []);
      await second.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
      first.call.end();
      second.call.end();
    });

    it("marks a device offline when the adapter does not come back within the grace", async () => {
      const { d } = await deviceOnAdapter("mqtt-never-back", "orphan");
      expect((await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      await expect
        .poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus, { timeout: 4000 })
        .toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
    });
  });

  it("ends a stream whose first message is not Hello", async () => {
    const s = openStream();
    const status = new Promise<grpc.StatusObject>((resolve) => s.call.on("status", resolve));
    s.send({
      case: "downlinkResult",
      value: { $typeName: "iot.registry.v1.DownlinkResult", downlinkId: 1n, status: DownlinkStatus.SENT, message: "" },
    });
    expect((await status).code).toBe(grpc.status.FAILED_PRECONDITION);
  });
});
