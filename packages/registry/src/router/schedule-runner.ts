import type { Kysely, Selectable } from "kysely";
import type { Database, SchedulesTable } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import { getGroup } from "../domain/groups.js";
import { planRun } from "../domain/schedule-times.js";
import { RegistryError } from "../errors.js";
import type { CommandRouter } from "./commands.js";

/** Default pause between two looks for due schedules, ms. */
export const DEFAULT_SCHEDULE_TICK_MS = 1_000;
/** Most due schedules one look takes on (the rest wait for the next look). */
const DUE_BATCH = 200;

/** How the runner works and whom it tells; every member has a default. */
export interface ScheduleRunnerOptions {
  /** Pause between two looks, ms. */
  tickMs?: number;
  /** A run was skipped because it was at least one interval late (e.g. missed while the service was down). */
  onSkipped?: (info: { scheduleId: number; tenantId: string; due: number; lateMs: number }) => void;
  /** A look failed; the next one tries again. */
  onError?: (err: unknown) => void;
}

type Row = Selectable<SchedulesTable>;

/**
 * Fires due schedules: each run is a normal device command (`CommandRouter.publish`) or group command
 * (`publishToGroup`) issued as the user who created the schedule, so it has its control logs, queueing and task like
 * one sent by hand. The due time lives in the store, so schedules survive restarts; a node claims a run by moving
 * `nextRunAt` on only if it still holds what it read, so each run fires at most once whatever the node count. A run
 * more than its allowance late (see `planRun`) is skipped and reported to `onSkipped`.
 */
export class ScheduleRunner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly commands: Pick<CommandRouter, "publish" | "publishToGroup">,
    private readonly options: ScheduleRunnerOptions = {},
  ) {}

  /** Runs every schedule due at `now` (epoch ms); answers how many runs fired. */
  async tick(now = Date.now()): Promise<number> {
    const due = await this.db
      .selectFrom("schedules")
      .selectAll()
      .where("nextRunAt", "<=", now)
      .orderBy("nextRunAt")
      .limit(DUE_BATCH)
      .execute();
    let fired = 0;
    for (const row of due) if (await this.runOne(row, now)) fired++;
    return fired;
  }

  private async runOne(row: Row, now: number): Promise<boolean> {
    const dueAt = row.nextRunAt!;
    if (!(await this.tenantExists(row.tenantId))) {
      // The schedules of a deleted tenant end with it (its devices and users are gone: nothing to send as).
      await this.db
        .updateTable("schedules")
        .set({ nextRunAt: null, lastError: "the tenant was deleted", updateAt: now })
        .where("id", "=", row.id)
        .where("nextRunAt", "=", dueAt)
        .execute();
      return false;
    }
    const plan = planRun(row, dueAt, now);
    const claimed = await this.db
      .updateTable("schedules")
      .set({ nextRunAt: plan.next, updateAt: now })
      .where("id", "=", row.id)
      .where("nextRunAt", "=", dueAt)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return false; // another node took this run
    if (!plan.fire) {
      this.options.onSkipped?.({ scheduleId: row.id, tenantId: row.tenantId, due: dueAt, lateMs: plan.lateMs });
      return false;
    }
    const caller: Caller = {
      userIntId: row.userIntId ?? 0,
      username: row.publishUser ?? "",
      tenantId: row.tenantId,
      role: "operator",
      serviceAdmin: false,
    };
    try {
      const outcome =
        row.deviceIntId !== null ? await this.toDevice(row, caller, now) : await this.toGroup(row, caller, now);
      await this.record(row.id, { ...outcome, lastRunAt: now, lastError: null, updateAt: now });
      return true;
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      // The device or group is gone (deleted by another node mid-run): the schedule ends. Else: try next time.
      const gone = err.code === "DATA_NOT_FOUND";
      const why = `${err.message}${err.errors ? `: ${JSON.stringify(err.errors)}` : ""}`;
      await this.record(row.id, {
        lastRunAt: now,
        lastControlLogId: null,
        lastTaskIntId: null,
        lastError: why.slice(0, 500),
        updateAt: now,
        ...(gone ? { nextRunAt: null } : {}),
      });
      return false;
    }
  }

  private async toDevice(row: Row, caller: Caller, now: number) {
    const cmd = { deviceIntId: row.deviceIntId!, topic: row.topic ?? undefined, payload: row.payload, qos: qosOf(row) };
    const r = await this.commands.publish(caller, cmd, now);
    return { lastControlLogId: r.id, lastTaskIntId: null };
  }

  private async toGroup(row: Row, caller: Caller, now: number) {
    const group = await getGroup(this.db, caller, row.groupIntId!);
    const r = await this.commands.publishToGroup(caller, { group, payload: row.payload, qos: qosOf(row) }, now);
    return { lastControlLogId: r.controlLogId, lastTaskIntId: r.task.id };
  }

  private async tenantExists(tenantId: string): Promise<boolean> {
    const t = await this.db.selectFrom("tenants").select("id").where("tenantId", "=", tenantId).executeTakeFirst();
    return t !== undefined;
  }

  private async record(id: number, set: Partial<Omit<Row, "id">>): Promise<void> {
    await this.db.updateTable("schedules").set(set).where("id", "=", id).execute();
  }

  /** Looks for due runs at once (runs missed while down fire now) and then every `tickMs` (unref'd timer). */
  start(): void {
    if (this.timer) return;
    let busy = false;
    const look = () => {
      if (busy) return; // a slow look is not stacked up behind
      busy = true;
      this.running = this.tick()
        .catch((err: unknown) => this.options.onError?.(err))
        .finally(() => (busy = false));
    };
    look();
    this.timer = setInterval(look, this.options.tickMs ?? DEFAULT_SCHEDULE_TICK_MS);
    this.timer.unref();
  }

  /** Stops looking and waits for the look under way (call before the command router stops). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

const qosOf = (row: Row): 0 | 1 | 2 => (row.qos === 2 ? 2 : row.qos === 1 ? 1 : 0);
