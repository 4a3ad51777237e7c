import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** An adapter's report on one downlink, as `CommandRouter.settle` takes it. */
export interface SettleReport {
  downlinkId: number;
  status: number;
  message: string;
  now: number;
}

/** A control log a report changed (it was still issued). */
export interface SettledLog {
  id: number;
  taskIntId: number | null;
  tenantId: string;
  deviceIntId: number | null;
  topic: string | null;
  /** The report that settled it. */
  report: SettleReport;
}

/**
 * Applies a batch of reports to their control logs, only to those still issued: one UPDATE per distinct outcome
 * (status, message), so a group's acknowledgements share one, stamped with the latest report's time. Answers, per
 * report, the log it changed (undefined when none: unknown, already settled, or settled by an earlier report).
 */
export async function settleReports(
  tx: Kysely<Database>,
  reports: readonly SettleReport[],
): Promise<Array<SettledLog | undefined>> {
  const byOutcome = new Map<string, SettleReport[]>();
  for (const report of reports) {
    const key = `${report.status}\u0000${report.message}`;
    const same = byOutcome.get(key);
    if (same) same.push(report);
    else byOutcome.set(key, [report]);
  }
  const changed = new Map<SettleReport, SettledLog>();
  for (const group of byOutcome.values()) {
    const { status, message } = group[0]!;
    const now = Math.max(...group.map((r) => r.now));
    const byId = new Map(group.map((r) => [r.downlinkId, r]));
    const rows = await tx
      .updateTable("controlLogs")
      .set({ publishStatus: status, updateAt: now, ...(message ? { result: message.slice(0, 500) } : {}) })
      .where("id", "in", [...byId.keys()])
      .where("publishStatus", "=", 1)
      .returning(["id", "taskIntId", "tenantId", "deviceIntId", "topic"])
      .execute();
    for (const r of rows) {
      const report = byId.get(Number(r.id))!;
      changed.set(report, { ...r, id: Number(r.id), report });
    }
  }
  return reports.map((r) => changed.get(r));
}
