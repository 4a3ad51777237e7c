import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** Connect log status codes (spec: 0 offline, 1 online, 2 authentication failed). */
export const CONNECT_STATUS = { offline: 0, online: 1, authFailed: 2 } as const;

/** A failed authentication, recorded for the tenant of the device it named (if any). */
export async function recordAuthFailure(
  db: Kysely<Database>,
  entry: {
    tenantId: string | null;
    deviceIntId: number | null;
    deviceId: string | null;
    deviceName: string | null;
    ip: string | null;
    reason: string;
  },
  now = Date.now(),
): Promise<void> {
  await db
    .insertInto("connectLogs")
    .values({
      ...entry,
      connectStatus: CONNECT_STATUS.authFailed,
      keepAlive: null,
      sessionId: null,
      createAt: now,
      updateAt: null,
    })
    .execute();
}

/**
 * A session ended: connect log 0; the device goes offline unless it still
 * holds another session (`stillOnline`).
 */
export async function markOffline(
  db: Kysely<Database>,
  s: {
    deviceIntId: number;
    sessionId: string;
    ip: string | null;
    keepAlive: number | null;
    at: number;
    reason: string;
    stillOnline: boolean;
  },
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const device = await tx
      .selectFrom("devices")
      .select(["tenantId", "deviceId", "deviceName"])
      .where("id", "=", s.deviceIntId)
      .executeTakeFirst();
    if (!device) return;
    if (!s.stillOnline) {
      await tx
        .updateTable("devices")
        .set({ deviceStatus: 0, clientIp: null, connectedAt: null })
        .where("id", "=", s.deviceIntId)
        .execute();
    }
    await tx
      .insertInto("connectLogs")
      .values({
        ...device,
        deviceIntId: s.deviceIntId,
        connectStatus: CONNECT_STATUS.offline,
        ip: s.ip,
        keepAlive: s.keepAlive,
        sessionId: s.sessionId,
        reason: s.reason,
        createAt: s.at,
        updateAt: null,
      })
      .execute();
  });
}

/**
 * Marks offline every device the database calls online but `isOnline` does
 * not know: after a restart, sessions no adapter re-announced in time are gone.
 * Single-node view: a multi-node deployment must ask every node first.
 */
export async function markStaleOffline(
  db: Kysely<Database>,
  isOnline: (deviceIntId: number) => boolean,
  reason: string,
  now = Date.now(),
): Promise<number> {
  const online = await db
    .selectFrom("devices")
    .select(["id", "clientIp", "keepAlive"])
    .where("deviceStatus", "!=", 0)
    .execute();
  const stale = online.filter((d) => !isOnline(d.id));
  for (const d of stale) {
    await markOffline(db, {
      deviceIntId: d.id,
      sessionId: "",
      ip: d.clientIp,
      keepAlive: d.keepAlive,
      at: now,
      reason,
      stillOnline: false,
    });
  }
  return stale.length;
}
