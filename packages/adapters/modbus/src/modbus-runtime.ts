import type { Logger } from "pino";
import type { DownlinkOutcome, RegistryClient } from "@iot/adapter-core";
import type { ChannelConfig, ModbusChannel } from "./channel-config.js";
import type { ModbusUnit } from "./channel-tags.js";
import type { PollStats } from "./poll-stats.js";
import { UnitPoller } from "./poller.js";
import { runWrites } from "./run-writes.js";
import { SlaveSession, type GatewayIdentity } from "./slave-session.js";
import type { ModbusLink } from "./transport/modbus-link.js";
import { ModbusSerialLink } from "./transport/modbus-serial-link.js";
import { planWrites } from "./write-plan.js";

/** Opens the link of a channel; tests and benchmarks may wrap or replace it. */
export type LinkFactory = (channel: ModbusChannel, logger: Logger) => ModbusLink;

/** The default link: modbus-serial over TCP or a serial port, with the channel's timeout and retries. */
export const serialLinkFactory: LinkFactory = (channel, logger) =>
  new ModbusSerialLink({ settings: channel.link, timeoutMs: channel.timeoutMs, retries: channel.retries, logger });

/** What the runtime needs; `reportEveryMs` is IOT_MODBUS_REPORT_EVERY in ms. */
export interface ModbusRuntimeOptions {
  readonly registry: RegistryClient;
  readonly gateway: GatewayIdentity;
  readonly logger: Logger;
  readonly stats: PollStats;
  readonly reportEveryMs: number;
  readonly policyDefault: "allow" | "deny";
  readonly createLink: LinkFactory;
  /** First delay before a refused or kicked slave is authenticated again, ms (default 1000). */
  readonly slaveBackoffMs?: number;
}

interface LinkEntry {
  readonly link: ModbusLink;
  /** Commands of the link's slaves run one after another (read-modify-writes must not interleave). */
  commands: Promise<unknown>;
}

/** A polled slave: its channel, unit, poller and registry session. */
export interface UnitEntry {
  readonly channel: ModbusChannel;
  readonly unit: ModbusUnit;
  readonly linkKey: string;
  readonly poller: UnitPoller;
  readonly slave: SlaveSession;
}

/** Channels with the same link settings, timeout and retries share one link. */
const linkKey = (ch: ModbusChannel) => JSON.stringify([ch.link, ch.timeoutMs, ch.retries]);

/**
 * The applied channel configuration at work: one link per channel and one poller plus slave session per unit,
 * reconciled on every push. A unit that keeps its device, unit id and link keeps its session and poller (its tags
 * and interval are updated in place); one whose device or unit id (modBusIndex) changed, or that moved to another
 * link, is stopped, its session closed, and starts anew (authenticated again); units gone are stopped and closed.
 */
export class ModbusRuntime {
  private readonly links = new Map<string, LinkEntry>();
  private readonly units = new Map<string, UnitEntry>();

  constructor(private readonly options: ModbusRuntimeOptions) {}

  /** Makes `config` the running one. */
  apply(config: ChannelConfig): void {
    const next = new Map<string, { channel: ModbusChannel; unit: ModbusUnit }>();
    for (const channel of config.channels) for (const unit of channel.units) next.set(unit.deviceId, { channel, unit });
    for (const [deviceId, entry] of this.units) {
      const wanted = next.get(deviceId);
      const same = wanted && wanted.unit.unit === entry.unit.unit && linkKey(wanted.channel) === entry.linkKey;
      if (same) continue;
      this.stop(entry, wanted ? "unit reconfigured" : "unit left the configuration");
    }
    for (const [deviceId, { channel, unit }] of next) {
      const entry = this.units.get(deviceId);
      if (entry) {
        entry.poller.update(unit, channel);
        this.units.set(deviceId, { ...entry, channel, unit });
      } else this.units.set(deviceId, this.startUnit(channel, unit));
    }
    const used = new Set([...this.units.values()].map((e) => e.linkKey));
    for (const [key, entry] of this.links) {
      if (used.has(key)) continue;
      this.links.delete(key);
      void entry.link.close();
    }
  }

  /** The unit polled as device `deviceId`. */
  byDeviceId(deviceId: string): UnitEntry | undefined {
    return this.units.get(deviceId);
  }

  /** The unit whose open session belongs to device `deviceIntId`. */
  bySession(deviceIntId: number): UnitEntry | undefined {
    for (const entry of this.units.values()) if (entry.slave.current?.device.deviceIntId === deviceIntId) return entry;
    return undefined;
  }

  /** Every unit polled now. */
  all(): UnitEntry[] {
    return [...this.units.values()];
  }

  /** Writes a command `{dataPointID: value}` to a unit, after the link's earlier commands. */
  write(entry: UnitEntry, payload: Uint8Array): Promise<DownlinkOutcome> {
    const steps = planWrites(entry.unit.tags, payload, entry.channel.byteOrder);
    if (!steps.ok) return Promise.resolve({ status: "FAILED", message: steps.reason });
    const link = this.links.get(entry.linkKey);
    if (!link) return Promise.resolve({ status: "FAILED", message: "the unit's link is closed" });
    const run = link.commands.then(() => runWrites(link.link, entry.unit.unit, steps.value));
    link.commands = run.catch(() => undefined);
    return run;
  }

  /** Ends every slave session (the gateway was kicked); slaves open new ones on their next answer. */
  endSessions(reason: string): void {
    for (const entry of this.units.values()) entry.slave.end(reason);
  }

  /** Stops polling, closes every session with `reason` and every link. */
  async close(reason: string): Promise<void> {
    for (const entry of this.units.values()) this.stop(entry, reason);
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((l) => l.link.close()));
  }

  private stop(entry: UnitEntry, reason: string): void {
    entry.poller.stop();
    entry.slave.close(reason);
    this.units.delete(entry.unit.deviceId);
  }

  private startUnit(channel: ModbusChannel, unit: ModbusUnit): UnitEntry {
    const key = linkKey(channel);
    const log = this.options.logger.child({ channel: channel.index, unit: unit.unit, deviceId: unit.deviceId });
    let link = this.links.get(key);
    if (!link) {
      link = { link: this.options.createLink(channel, this.options.logger), commands: Promise.resolve() };
      this.links.set(key, link);
    }
    const slave = new SlaveSession({
      registry: this.options.registry,
      gateway: this.options.gateway,
      unit: unit.unit,
      clientIp: link.link.endpoint,
      intervalMs: unit.intervalMs,
      policyDefault: this.options.policyDefault,
      logger: log,
      opened: () => poller.reportAllNext(),
      ...(this.options.slaveBackoffMs === undefined ? {} : { backoffInitialMs: this.options.slaveBackoffMs }),
    });
    const poller: UnitPoller = new UnitPoller({
      unit,
      settings: channel,
      link: link.link,
      logger: this.options.logger,
      stats: this.options.stats,
      reportEveryMs: this.options.reportEveryMs,
      listener: {
        online: () => log.info("slave online"),
        answered: () => slave.answered(),
        offline: (_unit, reason) => {
          log.warn({ reason }, "slave offline");
          slave.end("slave not answering");
        },
        report: (_unit, values) => slave.publish(values),
      },
    });
    poller.start();
    return { channel, unit, linkKey: key, poller, slave };
  }
}
