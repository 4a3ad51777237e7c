import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import { readEvents } from "../northbound/events.js";
import { CommandRouter } from "../router/commands.js";
import { PUBLISH_STATUS } from "../router/publish-status.js";
import type { RemoteCommands } from "../router/command-router-options.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { SessionTable } from "../sessions/session-table.js";
import { engines, type EngineUnderTest } from "../store/test-engines.js";
import { HandoverMarks } from "./handover-marks.js";

const logger = pino({ level: "silent" });
afterAll(() => Promise.all(engines.map((e) => e.cleanup())));

const TTL = 10_000;
const GRACE = 5_000;

/** Two nodes' command routers on one store: B holds the device's session, A runs the TTL sweep. */
async function twoNodes(engine: EngineUnderTest) {
  const { db, caller } = await twoTenants(engine);
  const product = await createProduct(db, caller, { productName: "Valve", cloudProtocol: 1 });
  const device = await createDevice(db, caller, {
    productId: product.productId,
    deviceName: "v",
    upLinkSystem: 1,
    authType: 1,
  });
  const node = () => {
    const sessions = new SessionTable();
    const router = new CommandRouter(db, sessions, TTL, { inFlightGraceMs: GRACE });
    const marks = new HandoverMarks(db, logger);
    const remote: RemoteCommands = {
      deliver: () => {},
      heldElsewhere: async () => new Set(),
      handedOver: (id, at) => marks.mark(id, at),
    };
    router.remote = remote;
    return { sessions, router, marks };
  };
  const [a, b] = [node(), node()];
  const adapter = fakeAdapterLink(b.sessions);
  /** The device connects to node B near the end of its commands' TTL: they are handed over then. */
  const connectAt = async (now: number) => {
    adapter.open(device.id);
    await b.router.deliverPending([device.id], now);
    await b.marks.stop();
  };
  const statusOf = async (id: number) =>
    (await db.selectFrom("controlLogs").select("publishStatus").where("id", "=", id).executeTakeFirstOrThrow())
      .publishStatus;
  return { db, caller, device, a, b, adapter, connectAt, statusOf };
}

describe.each(engines)("the command TTL sweep across nodes on $name", (engine) => {
  it("waits for the answer to a command another node handed to its adapter, and records it when it comes", async () => {
    const { caller, device, a, b, adapter, connectAt, statusOf } = await twoNodes(engine);
    const r = await b.router.publish(caller, { deviceIntId: device.id, payload: "late", qos: 1 }, 1_000);
    await connectAt(1_000 + TTL - 1_000);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id]);
    // Past its TTL, within the in-flight grace: the sweeping node leaves it issued.
    expect(await a.router.expire(1_000 + TTL + 1)).toBe(0);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
    await b.router.settle(r.id, PUBLISH_STATUS.delivered, "", 1_000 + TTL + 2);
    await b.router.stop();
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
  });

  it("expires a command another node handed over once the grace passed unanswered, with its command_result", async () => {
    const { db, caller, device, a, b, connectAt, statusOf } = await twoNodes(engine);
    const handed = await b.router.publish(caller, { deviceIntId: device.id, payload: "lost", qos: 1 }, 1_000);
    await connectAt(1_000 + TTL - 1_000);
    // An offline device's command (never handed over) expires at its TTL, as on one node.
    const offline = await createDevice(db, caller, {
      productId: (await db.selectFrom("products").select("productId").executeTakeFirstOrThrow()).productId,
      deviceName: "off",
      upLinkSystem: 1,
      authType: 1,
    });
    const queued = await a.router.publish(caller, { deviceIntId: offline.id, payload: "queued", qos: 1 }, 1_000);
    expect(await a.router.expire(1_000 + TTL + 1)).toBe(1);
    expect(await statusOf(queued.id)).toBe(PUBLISH_STATUS.failed);
    expect(await statusOf(handed.id)).toBe(PUBLISH_STATUS.issued);
    expect(await a.router.expire(1_000 + TTL - 1_000 + GRACE - 1)).toBe(0);
    expect(await a.router.expire(1_000 + TTL - 1_000 + GRACE + 1)).toBe(1);
    expect(await statusOf(handed.id)).toBe(PUBLISH_STATUS.failed);
    const results = (
      await readEvents(db, { afterId: 0, limit: 10, tenantId: caller.tenantId, types: ["command_result"] })
    ).map((e) => e.data);
    expect(results).toEqual(
      expect.arrayContaining([
        { controlLogID: handed.id, publishStatus: 0, status: "failed", topic: "inbox", result: "expired" },
      ]),
    );
  });
});
