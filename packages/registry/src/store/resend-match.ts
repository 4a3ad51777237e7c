import type { Kysely, Transaction } from "kysely";
import { reusableQuery } from "./reusable-query.js";
import type { Database } from "./schema.js";
import type { UplinkRecord } from "./store.js";

/**
 * How far back a possible resend looks for its first copy, ms: CoAP's EXCHANGE_LIFETIME (RFC 7252 §4.8.2, 247 s),
 * the longest a confirmable message is retransmitted and remembered. A device's resend that comes later (an MQTT
 * client offline for minutes) is stored again: a duplicate, never a loss.
 */
export const RESEND_WINDOW_MS = 247_000;

/**
 * Most of a device's latest uplinks searched for a resend's first copy. It bounds the lookup (read through the
 * device's (device, tenant, id) index, newest first) for a device that publishes fast: one whose first copy is older
 * than its last 1000 uplinks is stored again.
 */
export const RESEND_SCAN_ROWS = 1_000;

/** What a possible resend is compared with: an uplink of the same device with the same resend id. */
export interface ResendCopy {
  readonly topic: string;
  readonly payload: Uint8Array;
  readonly msgTime: number;
}

/**
 * Whether `resend` repeats `copy`, the device's latest uplink with the same resend id: same topic and payload, and
 * received within RESEND_WINDOW_MS before it. A reused id with another message is a new message, never dropped.
 */
export function repeats(copy: ResendCopy, resend: Pick<UplinkRecord, "topic" | "payload" | "msgTime">): boolean {
  return (
    copy.topic === resend.topic &&
    resend.msgTime - copy.msgTime <= RESEND_WINDOW_MS &&
    Buffer.from(copy.payload.buffer, copy.payload.byteOffset, copy.payload.byteLength).equals(resend.payload)
  );
}

/**
 * The lookup of `latestStoredCopy`, compiled once (see reusableQuery: write batches' transactions share it) instead of
 * built, transformed and compiled by kysely for every flagged uplink: that was over a third of the
 * lookup's cost, and the lookup a third of the central node's CPU under confirmable CoAP load (every publish of a
 * young CoAP session is flagged).
 */
const storedCopy = reusableQuery(
  (db: Kysely<Database>, deviceIntId: number, tenantId: string, resendId: string, since: number) => {
    const recent = db
      .selectFrom("deviceEvents")
      .select(["id", "resendId", "msgTime"])
      .where("deviceIntId", "=", deviceIntId)
      .where("tenantId", "=", tenantId)
      .orderBy("id", "desc")
      .limit(RESEND_SCAN_ROWS)
      .as("recent");
    return db
      .selectFrom("deviceEvents")
      .select(["topic", "payload", "msgTime"])
      .where(
        "id",
        "=",
        db
          .selectFrom(recent)
          .select("recent.id")
          .where("recent.resendId", "=", resendId)
          .where("recent.msgTime", ">=", since)
          .orderBy("recent.id", "desc")
          .limit(1),
      );
  },
);

/**
 * The device's latest stored uplink with `record.resendId` among its last RESEND_SCAN_ROWS uplinks received within
 * RESEND_WINDOW_MS before `record`, or undefined. One indexed query, made only for uplinks flagged `maybeResend`, on
 * PostgreSQL; a SQLite store answers the same from memory (RecentResendIds).
 */
export async function latestStoredCopy(
  db: Kysely<Database> | Transaction<Database>,
  record: UplinkRecord,
): Promise<ResendCopy | undefined> {
  const [row] = await storedCopy(
    db,
    record.deviceIntId,
    record.tenantId,
    record.resendId ?? "",
    record.msgTime - RESEND_WINDOW_MS,
  );
  return row && { topic: row.topic, payload: row.payload, msgTime: Number(row.msgTime) };
}

const copyByKey = reusableQuery((db: Kysely<Database>, msgKey: string) =>
  db.selectFrom("deviceEvents").select(["deviceIntId", "topic", "payload", "msgTime"]).where("msgKey", "=", msgKey),
);

/** The stored uplink with key `msgKey` (one probe of its unique index) and its device, or undefined. */
export async function storedCopyByKey(
  db: Kysely<Database> | Transaction<Database>,
  msgKey: string,
): Promise<(ResendCopy & { readonly deviceIntId: number }) | undefined> {
  const [row] = await copyByKey(db, msgKey);
  return row && { deviceIntId: row.deviceIntId, topic: row.topic, payload: row.payload, msgTime: Number(row.msgTime) };
}
