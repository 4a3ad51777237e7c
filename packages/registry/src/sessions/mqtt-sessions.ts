import type { SessionSubscription as StoredSubscription } from "@iot/proto";
import type { ExpressionBuilder, Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { SessionWrite } from "./mqtt-session-writes.js";

/** Session Expiry Interval meaning "never" (MQTT 5.0 §3.1.2.11.2; 3.1.1 clean session 0), seconds. */
export const SESSION_NEVER_EXPIRES = 0xffffffff;

/** What an admitted MQTT CONNECT asks of its session. */
export interface SessionAsk {
  readonly deviceIntId: number;
  readonly clientId: string;
  /** The registry session of the new connection, which holds the stored session from now on. */
  readonly sessionId: string;
  readonly cleanStart: boolean;
  /** Seconds; 0 ends the session with the connection, SESSION_NEVER_EXPIRES never. */
  readonly expiryInterval: number;
}

/** The session a connection resumes. */
export interface ResumedSession {
  readonly present: boolean;
  readonly subscriptions: readonly StoredSubscription[];
}

const NONE: ResumedSession = { present: false, subscriptions: [] };

/** Parses a row's subscriptions; a row that does not parse resumes nothing (it is overwritten on the next write). */
function parseSubscriptions(text: string): StoredSubscription[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as StoredSubscription[]) : [];
  } catch {
    return [];
  }
}

/**
 * Opens the MQTT sessions of admitted CONNECTs, in one read and at most two writes for the batch (a reconnect storm
 * admits a thousand at a time): a Clean Start drops the stored session; otherwise an unexpired stored session is
 * resumed (answered with its subscriptions). A session that outlives its connection (expiry interval above 0) is
 * then held by the new connection: its row names the new registry session, so a late update from the connection
 * it replaced (on another adapter, say) is ignored. A session that ends with its connection leaves no row.
 */
export async function openSessions(
  db: Kysely<Database>,
  asks: readonly SessionAsk[],
  now: number,
  run: (write: SessionWrite) => Promise<unknown> = (write) => write(db),
): Promise<ResumedSession[]> {
  if (asks.length === 0) return [];
  // Clean sessions (most devices) leave nothing to resume or keep: unless one of them has a session stored to drop,
  // they need no transaction (a connect storm of them would queue one per batch of checks).
  if (asks.every((a) => a.cleanStart && a.expiryInterval === 0)) {
    const stored = await db
      .selectFrom("mqttSessions")
      .select("deviceIntId")
      .where(
        "deviceIntId",
        "in",
        asks.map((a) => a.deviceIntId),
      )
      .limit(1)
      .execute();
    if (stored.length === 0) return asks.map(() => NONE);
  }
  // Otherwise read and written in the queue of session writes: what an adapter reported before the device came back
  // (its subscriptions, its end) is read here.
  let resumed: ResumedSession[] = [];
  await run(async (tx) => {
    resumed = await openIn(tx, asks, now);
  });
  return resumed;
}

/** openSessions' read and writes, in `db` (a transaction of the session writes). */
async function openIn(db: Kysely<Database>, asks: readonly SessionAsk[], now: number): Promise<ResumedSession[]> {
  const rows = await db
    .selectFrom("mqttSessions")
    .select(["deviceIntId", "clientId", "subscriptions", "expiresAt"])
    .where(
      "deviceIntId",
      "in",
      asks.map((a) => a.deviceIntId),
    )
    .execute();
  const stored = new Map(rows.map((r) => [`${Number(r.deviceIntId)}:${r.clientId}`, r]));
  const resumed = asks.map((a): ResumedSession => {
    const row = stored.get(`${a.deviceIntId}:${a.clientId}`);
    if (a.cleanStart || !row || (row.expiresAt !== null && Number(row.expiresAt) <= now)) return NONE;
    return { present: true, subscriptions: parseSubscriptions(row.subscriptions) };
  });
  // One row per session (two connects of one device in a batch: the later one holds it), as an upsert needs.
  const held = new Map(
    asks.flatMap((a, i) =>
      a.expiryInterval > 0 ? [[`${a.deviceIntId}:${a.clientId}`, { a, subs: resumed[i]!.subscriptions }] as const] : [],
    ),
  );
  const kept = [...held.values()];
  const dropped = asks.filter((a) => a.expiryInterval === 0 && stored.has(`${a.deviceIntId}:${a.clientId}`));
  if (dropped.length > 0)
    await db
      .deleteFrom("mqttSessions")
      .where((eb) =>
        eb.or(dropped.map((a) => eb.and([eb("deviceIntId", "=", a.deviceIntId), eb("clientId", "=", a.clientId)]))),
      )
      .execute();
  if (kept.length > 0)
    await db
      .insertInto("mqttSessions")
      .values(
        kept.map(({ a, subs }) => ({
          deviceIntId: a.deviceIntId,
          clientId: a.clientId,
          sessionId: a.sessionId,
          subscriptions: JSON.stringify(subs),
          expiryInterval: a.expiryInterval,
          expiresAt: null,
          updatedAt: now,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["deviceIntId", "clientId"]).doUpdateSet((eb) => ({
          sessionId: eb.ref("excluded.sessionId"),
          subscriptions: eb.ref("excluded.subscriptions"),
          expiryInterval: eb.ref("excluded.expiryInterval"),
          expiresAt: null,
          updatedAt: eb.ref("excluded.updatedAt"),
        })),
      )
      .execute();
  return resumed;
}

/** An adapter's report on a persistent session it holds (proto MqttSessionUpdate). */
export interface SessionUpdate {
  readonly sessionId: string;
  readonly deviceIntId: number;
  readonly clientId: string;
  readonly subscriptions: readonly StoredSubscription[];
  /** Seconds, as in force now (an MQTT 5.0 DISCONNECT may have changed it). */
  readonly expiryInterval: number;
  /** The connection ended: the session's expiry time starts. */
  readonly ended: boolean;
  readonly atMs: number;
}

/**
 * Writes a persistent session's subscriptions, and when its connection ended, its expiry time (none for a session
 * that never expires; an interval of 0 ends it now). Only while `sessionId` still holds it: a newer connection of the
 * device took it over otherwise, and its state wins.
 */
export async function updateSession(db: Kysely<Database>, u: SessionUpdate): Promise<void> {
  if (u.ended && u.expiryInterval === 0) {
    await db.deleteFrom("mqttSessions").where(heldBy(u)).execute();
    return;
  }
  const expiresAt = u.ended && u.expiryInterval < SESSION_NEVER_EXPIRES ? u.atMs + u.expiryInterval * 1000 : null;
  await db
    .updateTable("mqttSessions")
    .set({
      subscriptions: JSON.stringify(u.subscriptions),
      expiryInterval: u.expiryInterval,
      expiresAt,
      updatedAt: u.atMs,
    })
    .where(heldBy(u))
    .execute();
}

/** The session row `u` names, while its connection (`sessionId`) still holds it. */
function heldBy(u: SessionUpdate) {
  return (eb: ExpressionBuilder<Database, "mqttSessions">) =>
    eb.and([eb("deviceIntId", "=", u.deviceIntId), eb("clientId", "=", u.clientId), eb("sessionId", "=", u.sessionId)]);
}

/** Deletes the sessions whose expiry time passed; answers how many. Connects ignore them already (openSessions). */
export async function sweepExpiredSessions(db: Kysely<Database>, now: number): Promise<number> {
  const r = await db.deleteFrom("mqttSessions").where("expiresAt", "<=", now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
