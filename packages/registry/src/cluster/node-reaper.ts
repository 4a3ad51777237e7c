import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { markOffline } from "../domain/connectivity.js";
import type { Database } from "../store/schema.js";
import { HEARTBEAT_MS, NODE_EXPIRY_MS, listNodes } from "./node-heartbeat.js";
import type { RunningJob } from "./job-leases.js";

/** A gone node stays listed in health this long, ms. */
const FORGET_AFTER_MS = 3_600_000;

/**
 * Cleans up after nodes that are gone (stopped, or no beat for NODE_EXPIRY_MS): once `graceMs` (the session grace)
 * has passed — time for their adapters to reconnect to another node and re-announce their sessions there — their
 * remaining session and adapter rows are deleted, their undelivered routed messages dropped, and devices left with
 * no session anywhere are marked offline with a connect log. A singleton job (one node runs it, see JobLeases).
 * Answers the number of devices marked offline.
 */
export async function reapGoneNodes(
  db: Kysely<Database>,
  graceMs: number,
  now = Date.now(),
): Promise<{ nodes: string[]; offline: number }> {
  const nodes = await listNodes(db, now);
  const goneSince = (n: { stoppedAt: number | null; heartbeatAt: number }) =>
    n.stoppedAt ?? n.heartbeatAt + NODE_EXPIRY_MS;
  const gone = nodes.filter((n) => !n.alive && now - goneSince(n) >= graceMs).map((n) => n.nodeId);
  const forget = nodes.filter((n) => !n.alive && now - goneSince(n) >= FORGET_AFTER_MS).map((n) => n.nodeId);
  if (gone.length === 0) return { nodes: [], offline: 0 };
  const left = await db
    .deleteFrom("clusterSessions")
    .where("nodeId", "in", gone)
    .returning(["sessionId", "deviceIntId"])
    .execute();
  await db.deleteFrom("clusterAdapters").where("nodeId", "in", gone).execute();
  await db.deleteFrom("clusterMessages").where("nodeId", "in", gone).execute();
  if (forget.length > 0) await db.deleteFrom("clusterNodes").where("nodeId", "in", forget).execute();
  if (left.length === 0) return { nodes: gone, offline: 0 };
  const ids = [...new Set(left.map((s) => s.deviceIntId))];
  const held = new Set(
    (await db.selectFrom("clusterSessions").select("deviceIntId").where("deviceIntId", "in", ids).execute()).map(
      (r) => r.deviceIntId,
    ),
  );
  const devices = await db
    .selectFrom("devices")
    .select(["id", "clientIp", "keepAlive"])
    .where("id", "in", ids)
    .where("deviceStatus", "!=", 0)
    .execute();
  let offline = 0;
  for (const d of devices) {
    if (held.has(d.id)) continue;
    const sessionId = left.find((s) => s.deviceIntId === d.id)?.sessionId ?? "";
    const reason = "its central node is gone and its adapter did not re-announce the session";
    await markOffline(db, {
      deviceIntId: d.id,
      sessionId,
      ip: d.clientIp,
      keepAlive: d.keepAlive,
      at: now,
      reason,
      stillOnline: false,
    });
    offline++;
  }
  return { nodes: gone, offline };
}

/** The reaper as a singleton job: a pass every beat. */
export function nodeReaper(db: Kysely<Database>, graceMs: number, logger: Logger): RunningJob {
  let busy: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    busy = busy
      .then(() => reapGoneNodes(db, graceMs))
      .then((r) => r.offline > 0 && logger.info(r, "marked offline the devices of gone central nodes"))
      .catch((err: unknown) => logger.error({ err }, "cleaning up after gone nodes failed"));
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await busy;
    },
  };
}
