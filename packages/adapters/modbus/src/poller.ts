import type { Logger } from "pino";
import type { ModbusChannel } from "./channel-config.js";
import type { ModbusTag, ModbusUnit } from "./channel-tags.js";
import { planReads, type ReadRequest } from "./codec/read-plan.js";
import { decodeValue, type ModbusValue } from "./codec/value-codec.js";
import { ModbusError } from "./modbus-error.js";
import type { PollStats } from "./poll-stats.js";
import type { ModbusLink } from "./transport/modbus-link.js";

/** What a poller tells its owner about its unit. */
export interface PollerListener {
  /** The unit answered, for the first time or after being offline. */
  online(unit: ModbusUnit): void;
  /** The unit answered in this cycle (after `online` when it just came online, before `report`). */
  answered(unit: ModbusUnit): void;
  /** A whole cycle went unanswered (every request failed after its retries) while the unit was online. */
  offline(unit: ModbusUnit, reason: string): void;
  /** Values to send: those changed since the last report, or all of them when a full report is due. */
  report(unit: ModbusUnit, values: Readonly<Record<string, ModbusValue>>): void;
}

/** The channel settings a poller reads with. */
export type PollSettings = Pick<ModbusChannel, "byteOrder" | "maxGap">;

/** What a poller needs; `reportEveryMs` is IOT_MODBUS_REPORT_EVERY in ms. */
export interface UnitPollerOptions {
  readonly unit: ModbusUnit;
  readonly settings: PollSettings;
  readonly link: ModbusLink;
  readonly listener: PollerListener;
  readonly logger: Logger;
  readonly stats: PollStats;
  readonly reportEveryMs: number;
}

/**
 * Polls one unit (slave) at its interval: the readable tags (R, RW) merged into as few reads as planReads allows,
 * each value decoded in the channel's byte order. Cycles are scheduled on a fixed grid (start + k × interval); how
 * late each starts is recorded, and when a cycle overruns a whole interval the missed ones are skipped and counted.
 * A unit is online while it answers (an exception is an answer); it goes offline after a cycle in which no request
 * got one. Failures are logged when they start or change, never thrown.
 */
export class UnitPoller {
  private unitConfig: ModbusUnit;
  private settings: PollSettings;
  private requests: ReadRequest<ModbusTag>[] = [];
  private readonly values = new Map<string, ModbusValue>();
  private readonly reported = new Map<string, ModbusValue>();
  private readonly failing = new Map<string, string>();
  private lastFullReport = Number.NEGATIVE_INFINITY;
  private isOnline = false;
  private stopped = true;
  private due = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(private readonly options: UnitPollerOptions) {
    this.unitConfig = options.unit;
    this.settings = options.settings;
    this.log = options.logger.child({
      component: "modbus-poller",
      unit: options.unit.unit,
      deviceId: options.unit.deviceId,
    });
    this.plan();
  }

  get unit(): ModbusUnit {
    return this.unitConfig;
  }

  /** Whether the unit answered in its last cycle. */
  get online(): boolean {
    return this.isOnline;
  }

  /** The last value read of each tag. */
  get lastValues(): ReadonlyMap<string, ModbusValue> {
    return this.values;
  }

  /** Starts polling at once, then every interval. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.due = performance.now();
    this.timer = setTimeout(() => void this.tick(), 0);
  }

  /** Stops polling; a request on the wire finishes but its results are dropped. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** New tags, interval or settings of the same unit; values of tags that are gone are forgotten. */
  update(unit: ModbusUnit, settings: PollSettings): void {
    this.unitConfig = unit;
    this.settings = settings;
    const names = new Set(unit.tags.map((t) => t.name));
    for (const map of [this.values, this.reported])
      for (const name of map.keys()) if (!names.has(name)) map.delete(name);
    this.plan();
  }

  /** The next cycle reports every value (a session just opened and has sent nothing yet). */
  reportAllNext(): void {
    this.lastFullReport = Number.NEGATIVE_INFINITY;
  }

  private plan(): void {
    const readable = this.unitConfig.tags.filter((t) => t.access !== "W");
    const { maxGap } = this.settings;
    const plan = planReads(readable, { maxGap, maxBitGap: maxGap * 16 });
    for (const { tag, reason } of plan.refused) this.log.warn({ tag: tag.name, reason }, "tag cannot be read");
    this.requests = plan.requests;
  }

  private async tick(): Promise<void> {
    const { stats } = this.options;
    stats.lateness(performance.now() - this.due);
    await this.cycle();
    if (this.stopped) return;
    const interval = this.unitConfig.intervalMs;
    this.due += interval;
    const now = performance.now();
    const missed = Math.floor((now - this.due) / interval);
    if (missed > 0) {
      stats.missedCycles += missed;
      this.due += missed * interval;
    }
    this.timer = setTimeout(() => void this.tick(), Math.max(0, this.due - now));
  }

  private async cycle(): Promise<void> {
    const { stats, link } = this.options;
    stats.polls++;
    let answered = false;
    let lastProblem = "no readable tags";
    for (const request of this.requests) {
      if (this.stopped) return;
      stats.requests++;
      try {
        const data = await link.read(request.unit, request.area, request.offset, request.count);
        stats.registersRead += request.count;
        answered = true;
        this.succeeded(request);
        for (const { tag, at } of request.tags) this.decode(tag, data, at);
      } catch (err) {
        stats.errors++;
        const e = err instanceof ModbusError ? err : new ModbusError("BAD_RESPONSE", String(err));
        if (e.code === "EXCEPTION") answered = true;
        lastProblem = e.message;
        this.failed(request, e);
        for (const { tag } of request.tags) this.forget(tag.name);
      }
    }
    if (this.stopped) return;
    if (answered && !this.isOnline) {
      this.isOnline = true;
      this.options.listener.online(this.unitConfig);
    } else if (!answered && this.isOnline) {
      this.isOnline = false;
      this.options.listener.offline(this.unitConfig, lastProblem);
    }
    if (answered) {
      this.options.listener.answered(this.unitConfig);
      this.report();
    }
  }

  private decode(tag: ModbusTag, data: ArrayLike<number | boolean>, at: number): void {
    const value = decodeValue(tag.layout, data, this.settings.byteOrder, at);
    const key = `tag ${tag.name}`;
    if (value.ok) {
      this.values.set(tag.name, value.value);
      this.failing.delete(key);
    } else if (this.failing.get(key) !== value.reason) {
      this.failing.set(key, value.reason);
      this.log.warn({ tag: tag.name, reason: value.reason }, "value not reported");
    }
  }

  /** A value no longer known: not reported until read again, and then reported as a change. */
  private forget(name: string): void {
    this.values.delete(name);
    this.reported.delete(name);
  }

  private report(): void {
    const now = Date.now();
    const full = now - this.lastFullReport >= this.options.reportEveryMs;
    const out: Record<string, ModbusValue> = {};
    for (const [name, value] of this.values) {
      if (full || !Object.is(this.reported.get(name), value)) out[name] = value;
      this.reported.set(name, value);
    }
    if (full) this.lastFullReport = now;
    if (Object.keys(out).length > 0) this.options.listener.report(this.unitConfig, out);
  }

  private succeeded(request: ReadRequest<ModbusTag>): void {
    const key = requestKey(request);
    if (this.failing.delete(key)) this.log.info({ request: key }, "read answered again");
  }

  private failed(request: ReadRequest<ModbusTag>, err: ModbusError): void {
    const key = requestKey(request);
    const details = { request: key, code: err.code, exception: err.exception, reason: err.message };
    // The same kind of failure again is logged at debug only: a dead link's message changes with each retry delay.
    const kind = `${err.code}:${err.exception?.code ?? ""}`;
    if (this.failing.get(key) === kind) return this.log.debug(details, "read failed again");
    this.failing.set(key, kind);
    this.log.warn(details, err.code === "EXCEPTION" ? "slave answered an exception" : "read failed");
  }
}

function requestKey(r: ReadRequest<ModbusTag>): string {
  return `${r.area}@${r.offset}+${r.count}`;
}
