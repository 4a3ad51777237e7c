import { CompiledQuery, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Engine } from "../store/store.js";
import { engineOf } from "../store/multi-row-insert.js";
import { queryIn } from "../store/query-in.js";

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
  const engine = engineOf(tx);
  for (const group of byOutcome.values()) {
    const { status, message } = group[0]!;
    const now = Math.max(...group.map((r) => r.now));
    const byId = new Map(group.map((r) => [r.downlinkId, r]));
    const set = message ? [status, now, message.slice(0, 500)] : [status, now];
    const rows = await queryIn(byId.keys(), async (ids) => {
      const query = CompiledQuery.raw(settleText(engine, ids.length, set.length), [...set, ...ids]);
      return (await tx.executeQuery<ChangedRow>(query)).rows;
    });
    for (const r of rows) {
      const report = byId.get(Number(r.id))!;
      changed.set(report, {
        id: Number(r.id),
        taskIntId: r.task,
        tenantId: r.tenant,
        deviceIntId: r.device,
        topic: r.topic,
        report,
      });
    }
  }
  return reports.map((r) => changed.get(r));
}

/** A row the settle UPDATE changed, as its RETURNING names the columns. */
interface ChangedRow {
  id: number;
  task: number | null;
  tenant: string;
  device: number | null;
  topic: string | null;
}

/** The settle UPDATE's SQL text per engine, IN list length and columns set, made once. */
const SETTLE_TEXTS = new Map<string, string>();

/**
 * The UPDATE of one outcome: sets `publish_status`, `update_at` and, with 3 values, `result` of the still issued logs
 * among the `ids` values of its IN list. Written once per shape instead of built by kysely for each batch (5 % of the
 * central node's time per device_publish), and with IN lists of a few lengths only (see queryIn), each a statement
 * SQLite keeps prepared. The status is compared as `+publish_status` so that SQLite finds the rows by id: without
 * statistics it chose the `control_logs_issued` index for any list of more than one id, which reads every issued log
 * (a group's 10,000 awaiting their acknowledgements) for each batch of reports.
 */
export function settleText(engine: Engine, ids: number, values: number): string {
  const key = `${engine} ${ids} ${values}`;
  let text = SETTLE_TEXTS.get(key);
  if (text === undefined) {
    const mark = (i: number) => (engine === "postgres" ? `$${i + 1}` : "?");
    const columns = ["publish_status", "update_at", "result"].slice(0, values);
    const list = Array.from({ length: ids }, (_, i) => mark(values + i)).join(", ");
    text =
      `update control_logs set ${columns.map((c, i) => `${c} = ${mark(i)}`).join(", ")} ` +
      `where id in (${list}) and +publish_status = 1 ` +
      "returning id, task_int_id as task, tenant_id as tenant, device_int_id as device, topic";
    SETTLE_TEXTS.set(key, text);
  }
  return text;
}
