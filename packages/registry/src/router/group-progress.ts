import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { TASK_STATUS, updateTask, type TaskStatus } from "../domain/tasks.js";
import type { MulticastNote } from "./lora-multicast-send.js";

/**
 * A group command's members by outcome: `success` acknowledged (2) or sent (3), `failed` 0, `pending` still issued (1).
 */
interface GroupCounts {
  total: number;
  success: number;
  failed: number;
  pending: number;
}

/** Task status, progress and message a group command's counts amount to. */
function groupTaskState(c: GroupCounts): { status: TaskStatus; progress: number; message: string } {
  const settled = c.total - c.pending;
  const progress = c.total === 0 ? 100 : Math.floor((settled * 100) / c.total);
  if (c.total === 0) return { status: TASK_STATUS.success, progress, message: "the group has no devices" };
  if (c.pending > 0)
    return { status: TASK_STATUS.running, progress, message: `waiting for ${c.pending} of ${c.total} devices` };
  if (c.failed > 0)
    return { status: TASK_STATUS.failed, progress, message: `${c.failed} of ${c.total} devices failed` };
  return { status: TASK_STATUS.success, progress, message: `all ${c.total} devices reached` };
}

/**
 * A multicast group command's task message: how its frame went (gateways, and the members last heard through them),
 * then what is still awaited or failed. Members count as sent once the frame went out.
 */
function multicastMessage(m: MulticastNote, c: GroupCounts, counted: string): string {
  const frame = `multicast (McAddr ${m.mcAddr}, FCnt ${m.fCnt})`;
  const head =
    m.gateways === 0
      ? `${frame} sent by no gateway`
      : `${frame} sent by ${m.gateways} gateway${m.gateways === 1 ? "" : "s"} that last heard ${m.covered} of ${c.total} devices`;
  return c.pending > 0 || c.failed > 0 ? `${head}; ${counted}` : head;
}

/** How many times its last recount's duration a task's next recount waits after that one started (at least). */
const RECOUNT_SPACING = 4;

/**
 * Keeps a group command's task and its group control log in step with the
 * members' control logs. Recounting is serialized per task on this node, so
 * a slower recount never overwrites a newer one; a finished task is final.
 */
export class GroupProgress {
  private readonly running = new Map<number, Promise<void>>();
  /** Per task, the recount queued but not started yet. */
  private readonly waiting = new Map<number, Promise<void>>();

  /** Per task still running, when its last recount started (epoch ms). */
  private readonly started = new Map<number, number>();
  /** Per task still running, how long its last recount took (ms). */
  private readonly took = new Map<number, number>();
  /** Per task sent as LoRaWAN multicast, what its frame came to (see `note`). */
  private readonly notes = new Map<number, MulticastNote>();

  /**
   * @param minIntervalMs least time between two recounts of one task, ms: a recount reads every member's log, and
   *   acknowledgements trickling in one by one would otherwise cost one each. A recount that takes longer (a group of
   *   100,000 reads 100,000 logs) waits `RECOUNT_SPACING` times its last duration instead, so the recounts of an
   *   acknowledgement wave take at most about a quarter of the node's time whatever the group's size.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly minIntervalMs = 25,
  ) {}

  /**
   * Recounts the task's members after the ones before it finished, and at least `minIntervalMs` (or four times the
   * last one's duration) after the last one started; rejects when the recount fails. Asks made while a recount waits
   * to start share it (it reads after all of them), so 10,000 acknowledgements cost a few recounts.
   */
  refresh(taskIntId: number): Promise<void> {
    const waiting = this.waiting.get(taskIntId);
    if (waiting) return waiting;
    const before = this.running.get(taskIntId) ?? Promise.resolve();
    const next = before
      .catch(() => {})
      .then(async () => {
        const spacing = Math.max(this.minIntervalMs, RECOUNT_SPACING * (this.took.get(taskIntId) ?? 0));
        const wait = (this.started.get(taskIntId) ?? 0) + spacing - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.waiting.delete(taskIntId);
        const start = Date.now();
        this.started.set(taskIntId, start);
        await this.recount(taskIntId);
        if (this.started.has(taskIntId)) this.took.set(taskIntId, Date.now() - start);
      });
    this.waiting.set(taskIntId, next);
    const tail = next.catch(() => {});
    this.running.set(taskIntId, tail);
    void tail.then(() => {
      if (this.running.get(taskIntId) === tail) this.running.delete(taskIntId);
    });
    return next;
  }

  /** Waits for every recount under way (before the store closes). */
  async idle(): Promise<void> {
    await Promise.all(this.running.values());
  }

  /**
   * The group command went as one LoRaWAN multicast frame: its task's result carries `multicast` (McAddr, FCnt,
   * gateways) and its message says so, from the next recount on.
   */
  note(taskIntId: number, multicast: MulticastNote): void {
    this.notes.set(taskIntId, multicast);
  }

  private async recount(taskIntId: number, now = Date.now()): Promise<void> {
    const rows = await this.db
      .selectFrom("controlLogs")
      .select((eb) => ["publishStatus", eb.fn.countAll().as("n")])
      .where("taskIntId", "=", taskIntId)
      .where("deviceIntId", "is not", null)
      .groupBy("publishStatus")
      .execute();
    const c: GroupCounts = { total: 0, success: 0, failed: 0, pending: 0 };
    for (const r of rows) {
      const n = Number(r.n);
      c.total += n;
      if (r.publishStatus === 0) c.failed += n;
      else if (r.publishStatus === 1) c.pending += n;
      else c.success += n;
    }
    const state = groupTaskState(c);
    const multicast = this.notes.get(taskIntId);
    if (multicast) state.message = multicastMessage(multicast, c, state.message);
    await updateTask(this.db, taskIntId, { ...state, result: multicast ? { ...c, multicast } : c }, now);
    if (c.pending > 0) return;
    this.notes.delete(taskIntId);
    this.started.delete(taskIntId);
    this.took.delete(taskIntId);
    // The group's own log: 2 (or 3 without acknowledgement, QoS 0, or as multicast, which nothing acknowledges) when
    // every member got it, else 0.
    await this.db
      .updateTable("controlLogs")
      .set((eb) => ({
        publishStatus: c.failed > 0 ? 0 : multicast ? 3 : eb.case().when("qos", ">=", 1).then(2).else(3).end(),
        updateAt: now,
      }))
      .where("taskIntId", "=", taskIntId)
      .where("deviceIntId", "is", null)
      .where("publishStatus", "=", 1)
      .execute();
  }
}
