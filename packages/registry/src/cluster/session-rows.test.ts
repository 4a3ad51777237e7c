import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import { ConnectivityWriter, type SessionEvent } from "../sessions/connectivity-writer.js";
import { SessionTable, type AdapterLink, type LiveSession } from "../sessions/session-table.js";
import { engines, type EngineUnderTest } from "../store/test-engines.js";
import { NODE_EXPIRY_MS } from "./node-heartbeat.js";
import { reapGoneNodes } from "./node-reaper.js";
import { SessionRows } from "./session-rows.js";

const logger = pino({ level: "silent" });
afterAll(() => Promise.all(engines.map((e) => e.cleanup())));

const link = (instanceId: string): AdapterLink => ({
  instanceId,
  protocol: 1,
  version: "t",
  attachedAt: 0,
  sendDownlink: () => {},
  kick: () => {},
  updatePolicies: () => {},
  updateSubscriptions: () => {},
  updateRetained: () => {},
  updateTenantLimits: () => {},
});

/** Two nodes on one store, each with its session table and connectivity writer recording session rows. */
async function twoNodes(engine: EngineUnderTest) {
  const { db, caller } = await twoTenants(engine);
  const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
  const device = await createDevice(db, caller, {
    productId: product.productId,
    deviceName: "d",
    upLinkSystem: 1,
    authType: 1,
  });
  const node = (nodeId: string) => {
    const table = new SessionTable();
    const rows = new SessionRows(db, nodeId, logger);
    const writer = new ConnectivityWriter(db, (id) => table.latestSession(id), logger, rows);
    table.attach(link(`adapter-${nodeId}`));
    const session: LiveSession = {
      sessionId: `s-${nodeId}`,
      deviceIntId: device.id,
      tenantId: caller.tenantId,
      clientIp: "10.0.0.1",
      keepAlive: 30,
      openedAt: 1_000,
      credentialStamp: "",
    };
    const event = (kind: SessionEvent["kind"]): SessionEvent => ({
      kind,
      deviceIntId: device.id,
      sessionId: session.sessionId,
      ip: session.clientIp,
      keepAlive: 30,
      at: 2_000,
      instanceId: `adapter-${nodeId}`,
    });
    return {
      open: async () => {
        table.open(`adapter-${nodeId}`, session);
        writer.record(event("opened"));
        await writer.flush();
      },
      close: async () => {
        table.close(`adapter-${nodeId}`, session.sessionId);
        writer.record(event("closed"));
        await writer.flush();
      },
    };
  };
  const status = async () =>
    (await db.selectFrom("devices").select("deviceStatus").where("id", "=", device.id).executeTakeFirstOrThrow())
      .deviceStatus;
  const sessionRows = () =>
    db.selectFrom("clusterSessions").select(["sessionId", "nodeId"]).orderBy("sessionId").execute();
  return { db, device, node, status, sessionRows };
}

describe.each(engines)("sessions recorded per node ($name)", (engine) => {
  it("keeps a device online while another node holds a session of it, and offline once none does", async () => {
    const { node, status, sessionRows } = await twoNodes(engine);
    const [a, b] = [node("a"), node("b")];
    await a.open();
    await b.open();
    expect(await sessionRows()).toEqual([
      { sessionId: "s-a", nodeId: "a" },
      { sessionId: "s-b", nodeId: "b" },
    ]);
    await a.close(); // node A has no session left, node B still has one
    expect([await status(), await sessionRows()]).toEqual([1, [{ sessionId: "s-b", nodeId: "b" }]]);
    await b.close();
    expect([await status(), await sessionRows()]).toEqual([0, []]);
  });

  it("counts, per batch, each limited tenant's devices on other nodes and which of the batch's devices are among them", async () => {
    const { db, device, node } = await twoNodes(engine);
    await node("b").open(); // the tenant's device holds a session on node B
    const tenantId = (
      await db.selectFrom("devices").select("tenantId").where("id", "=", device.id).executeTakeFirstOrThrow()
    ).tenantId;
    const here = new SessionRows(db, "a", logger);
    const elsewhere = await here.tenantConnectionsElsewhere([
      { tenantId, deviceIntId: device.id },
      { tenantId, deviceIntId: device.id + 1_000 },
      { tenantId: "other-tenant", deviceIntId: device.id + 2_000 },
    ]);
    expect(elsewhere).toEqual(
      new Map([
        [device.id, { devices: 1, holdsDevice: true }],
        [device.id + 1_000, { devices: 1, holdsDevice: false }],
        [device.id + 2_000, { devices: 0, holdsDevice: false }],
      ]),
    );
    expect(
      await new SessionRows(db, "b", logger).tenantConnectionsElsewhere([{ tenantId, deviceIntId: device.id }]),
    ).toEqual(new Map([[device.id, { devices: 0, holdsDevice: false }]]));
  });

  it("marks offline, after the session grace, the devices of a node that stopped beating", async () => {
    const { db, device, node, status, sessionRows } = await twoNodes(engine);
    await node("dead").open();
    const now = Date.now();
    const beat = now - NODE_EXPIRY_MS - 5_000;
    await db
      .insertInto("clusterNodes")
      .values({ nodeId: "dead", apiAddress: "", grpcAddress: "", startedAt: beat, heartbeatAt: beat, stoppedAt: null })
      .execute();
    // Within the grace (10 s): its adapter may still re-announce the session elsewhere.
    expect(await reapGoneNodes(db, 10_000, now)).toEqual({ nodes: [], offline: 0 });
    expect(await status()).toBe(1);
    expect(await reapGoneNodes(db, 5_000, now)).toEqual({ nodes: ["dead"], offline: 1 });
    expect([await status(), await sessionRows()]).toEqual([0, []]);
    const log = await db
      .selectFrom("connectLogs")
      .select(["connectStatus", "sessionId"])
      .where("deviceIntId", "=", device.id)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ connectStatus: 0, sessionId: "s-dead" });
  });
});
