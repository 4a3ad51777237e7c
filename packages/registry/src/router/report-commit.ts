import type { Kysely } from "kysely";
import { appendEvents, eventsCommitted } from "../northbound/events.js";
import { commandsTotal } from "../ops/registry-metrics.js";
import type { BatchDurability } from "../store/batch-durability.js";
import type { Database } from "../store/schema.js";
import { GroupCommit } from "./group-commit.js";
import type { GroupProgress } from "./group-progress.js";
import { commandResult, STATUS_NAMES, type PublishStatus } from "./publish-status.js";
import { settleReports, type SettledLog, type SettleReport } from "./settle-batch.js";

/** How long delivery reports gather before their transaction, ms (see `GroupCommit`'s `gatherMs`). */
const REPORT_GATHER_MS = 20;

/**
 * Writes adapters' reports in batches (group commit): each batch settles its still-issued logs with their
 * command_result events in one transaction, then counts the outcomes and recounts the group tasks they belong to.
 */
export function reportCommit(
  db: Kysely<Database>,
  progress: GroupProgress,
  durability: BatchDurability | undefined,
  syncEveryMs: number,
): GroupCommit<SettleReport, SettledLog | undefined> {
  return new GroupCommit(
    db,
    async (tx, reports) => {
      const changed = await settleReports(tx, reports);
      const logs = changed.filter((l) => l !== undefined);
      const events = logs.map((l) =>
        commandResult(l, l.report.status as PublishStatus, l.report.message, l.report.now),
      );
      await appendEvents(tx, events, reports[0]!.now);
      return changed;
    },
    {
      durability,
      syncEveryMs,
      // Nobody waits for a report's commit: gathering makes a group's acknowledgements a few batches, and the
      // reports of 1,000 device_publish calls a second 50 batches a second instead of 200 (each a COMMIT writing the
      // same few pages of the log, event and index trees again).
      gatherMs: REPORT_GATHER_MS,
      after: async (changed) => {
        const logs = changed.filter((l) => l !== undefined);
        if (logs.length > 0) eventsCommitted();
        for (const l of logs) commandsTotal().inc({ outcome: STATUS_NAMES[l.report.status as PublishStatus] });
        const tasks = new Set(logs.flatMap((l) => (l.taskIntId == null ? [] : [l.taskIntId])));
        await Promise.all([...tasks].map((t) => progress.refresh(t)));
      },
    },
  );
}
