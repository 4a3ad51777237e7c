import type { Kysely } from "kysely";
import { appendEvents, eventsCommitted } from "../northbound/events.js";
import type { Database } from "../store/schema.js";
import { commandResult, PUBLISH_STATUS } from "./publish-status.js";

/** Most expired commands marked failed by one sweep, and most unreachable ones failed in one transaction. */
export const SWEEP_BATCH = 1000;

/**
 * The oldest issued commands whose TTL ran out by `now`, at most SWEEP_BATCH. With `handedGraceMs` (several nodes),
 * one another node handed to its adapter less than that long ago is left out: it waits for its answer too.
 */
export async function dueCommands(db: Kysely<Database>, now: number, handedGraceMs?: number): Promise<number[]> {
  const due = await db
    .selectFrom("controlLogs")
    .select("id")
    .where("publishStatus", "=", PUBLISH_STATUS.issued)
    .where("expiresAt", "<=", now)
    .$if(handedGraceMs !== undefined, (q) =>
      q.where((eb) => eb.or([eb("handedAt", "is", null), eb("handedAt", "<=", now - handedGraceMs!)])),
    )
    .orderBy("id")
    .limit(SWEEP_BATCH)
    .execute();
  return due.map((r) => r.id);
}

/**
 * Marks these still-issued commands failed with their command_result events, in one transaction (the feed says so
 * for every failure, whichever path failed it). Answers the rows that changed.
 */
export async function failCommands(db: Kysely<Database>, ids: readonly number[], message: string, now: number) {
  if (ids.length === 0) return [];
  const rows = await db.transaction().execute(async (tx) => {
    const changed = await tx
      .updateTable("controlLogs")
      .set({ publishStatus: PUBLISH_STATUS.failed, updateAt: now })
      .where("id", "in", ids)
      .where("publishStatus", "=", PUBLISH_STATUS.issued)
      .returning(["id", "taskIntId", "tenantId", "deviceIntId", "topic"])
      .execute();
    await appendEvents(
      tx,
      changed.map((r) => commandResult(r, PUBLISH_STATUS.failed, message, now)),
      now,
    );
    return changed;
  });
  if (rows.length > 0) eventsCommitted();
  return rows;
}
