import type { Logger } from "pino";
import type { BackoffOptions, DeviceSession, Downlink, DownlinkOutcome, RegistryClient } from "@iot/adapter-core";
import { parseChannelConfig } from "./channel-config.js";
import { loginGateway, type GatewayCredentials } from "./gateway-login.js";
import { ModbusRuntime, serialLinkFactory, type LinkFactory, type UnitEntry } from "./modbus-runtime.js";
import { PollStats } from "./poll-stats.js";

/** The gateway topic the registry pushes the channel configuration on. */
export const CONFIG_TOPIC = "config/modbus";

/** A gateway topic `devices/<childDeviceID>/…`: a command for that slave routed through the gateway. */
const CHILD_TOPIC = /^devices\/([^/]+)(?:\/.*)?$/;

/** What the Modbus adapter needs from outside. */
export interface ModbusAdapterOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  /** The gateway this adapter polls for (IOT_MODBUS_GATEWAY_ID, _USERNAME, _TOKEN). */
  readonly gateway: GatewayCredentials;
  /** IOT_MODBUS_REPORT_EVERY: seconds between two full reports of a slave's values. */
  readonly reportEverySeconds: number;
  /** IOT_POLICY_DEFAULT: the decision for `up/modbus` when no policy of a slave matches (default allow). */
  readonly policyDefault?: "allow" | "deny";
  /** How a channel's link is opened (default modbus-serial). */
  readonly createLink?: LinkFactory;
  /** Delays between gateway logins (default 500 ms doubling to 30 s). */
  readonly gatewayBackoff?: BackoffOptions;
  /** First delay before a refused or kicked slave is authenticated again, ms (default 1000). */
  readonly slaveBackoffMs?: number;
}

/** The Modbus edge master of one gateway. */
export interface ModbusAdapter {
  /** Authenticates the gateway (asking again until admitted) and reports its session open; resolves then. */
  start(): Promise<void>;
  /** The gateway's open session, if any. */
  readonly gatewaySession: DeviceSession | undefined;
  /** Counters and poll lateness of every unit. */
  readonly stats: PollStats;
  /** The units polled now. */
  units(): UnitEntry[];
  /** Stops polling, reports every session closed and releases the links. */
  close(): Promise<void>;
}

/**
 * Builds the adapter: it logs in as the gateway, takes its channel configuration from the registry (a command on
 * `config/modbus`), polls the slaves, opens a session per slave and sends its values as uplinks, and writes commands
 * to slaves (sent to the slave, or to the gateway on `devices/<childDeviceID>/…`). A kicked gateway ends every slave
 * session and logs in again; a kicked slave is authenticated again on a later answer.
 */
export function createModbusAdapter(options: ModbusAdapterOptions): ModbusAdapter {
  const { registry, gateway } = options;
  const log = options.logger.child({ component: "modbus-adapter", gateway: gateway.deviceId });
  const stats = new PollStats();
  const stopping = new AbortController();
  let gatewaySession: DeviceSession | undefined;
  let login: Promise<void> | undefined;
  const runtime = new ModbusRuntime({
    registry,
    gateway: { ...gateway, session: () => gatewaySession },
    logger: log,
    stats,
    reportEveryMs: options.reportEverySeconds * 1000,
    policyDefault: options.policyDefault ?? "allow",
    createLink: options.createLink ?? serialLinkFactory,
    ...(options.slaveBackoffMs === undefined ? {} : { slaveBackoffMs: options.slaveBackoffMs }),
  });

  const logIn = (): Promise<void> =>
    (login ??= loginGateway(registry, gateway, log, stopping.signal, options.gatewayBackoff).then((session) => {
      login = undefined;
      if (!session || stopping.signal.aborted) return;
      gatewaySession = session;
      registry.sessionOpened(session, { clientIp: "", keepAlive: 0 });
      log.info({ deviceIntId: session.device.deviceIntId }, "gateway session open");
    }));

  const applyConfig = (payload: Uint8Array): DownlinkOutcome => {
    const parsed = parseChannelConfig(payload);
    if (!parsed.ok) {
      log.warn({ reason: parsed.reason }, "channel configuration refused");
      return { status: "FAILED", message: parsed.reason };
    }
    const { channels, dropped } = parsed.value;
    for (const d of dropped) log.warn(d, "tag left out of the channel configuration");
    runtime.apply(parsed.value);
    const units = channels.reduce((n, ch) => n + ch.units.length, 0);
    log.info({ channels: channels.length, units, dropped: dropped.length }, "channel configuration applied");
    if (dropped.length === 0) return { status: "DELIVERED" };
    const list = dropped.map((d) => `${d.deviceId}/${d.tagname}: ${d.reason}`).join("; ");
    return { status: "DELIVERED", message: `applied without ${dropped.length} tag(s): ${list}` };
  };

  const gatewayCommand = (d: Downlink): Promise<DownlinkOutcome> | DownlinkOutcome => {
    if (d.topic === CONFIG_TOPIC) return applyConfig(d.payload);
    const child = CHILD_TOPIC.exec(d.topic)?.[1];
    if (child === undefined) return { status: "FAILED", message: `"${d.topic}" is not a Modbus gateway command` };
    const entry = runtime.byDeviceId(child);
    if (!entry) return { status: "FAILED", message: `device ${child} is not in the gateway's Modbus configuration` };
    return runtime.write(entry, d.payload);
  };

  registry.setHandlers({
    downlink: async (d) => {
      if (stopping.signal.aborted) return { status: "FAILED", message: "the Modbus adapter is stopping" };
      if (gatewaySession && d.deviceIntId === gatewaySession.device.deviceIntId) return gatewayCommand(d);
      const entry = runtime.bySession(d.deviceIntId);
      if (!entry) return { status: "FAILED", message: "the Modbus device has no session on this adapter" };
      return runtime.write(entry, d.payload);
    },
    kick: (deviceIntId, reason) => {
      if (stopping.signal.aborted) return;
      const session = gatewaySession;
      if (session && deviceIntId === session.device.deviceIntId) {
        log.warn({ reason }, "gateway kicked: ending slave sessions and logging in again");
        gatewaySession = undefined;
        runtime.endSessions(`gateway kicked: ${reason}`);
        registry.sessionClosed(session, `kicked: ${reason}`);
        void logIn();
        return;
      }
      runtime.bySession(deviceIntId)?.slave.kicked(reason);
    },
  });

  return {
    start: logIn,
    get gatewaySession() {
      return gatewaySession;
    },
    stats,
    units: () => runtime.all(),
    async close() {
      stopping.abort();
      await runtime.close("adapter stopping");
      const session = gatewaySession;
      gatewaySession = undefined;
      if (session) registry.sessionClosed(session, "adapter stopping");
    },
  };
}
