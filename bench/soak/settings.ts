/**
 * What a soak run is: its length, the share of the fleet's measured capacity it offers, how much churn and how
 * often a process is killed, all derived from the run's length so a 3-minute run in CI has the same shape as an
 * hour's, compressed.
 */

/**
 * Each protocol's capacity on this project's 2-core reference machine, from bench/RESULTS.md (the head table and
 * "Session 26"), per second: MQTT 3.1.1 QoS 1 ingest (bench:mqtt 37,825 msg/s), MQTT 5.0 (bench:mqtt5 run 2,
 * 21,123 msg/s), HTTP (bench:http 7,750/s), CoAP (bench:coap 7,975/s), LwM2M Registers (bench:lwm2m kept 1,000/s),
 * LoRaWAN uplinks (bench:lorawan 2,417/s), Modbus (bench:modbus: 200 slaves polled each second). CoAP over DTLS has
 * no benchmark: each of its requests here is a fresh handshake by libcoap's coap-client-openssl, a process each, so
 * its rate is a small fixed one rather than a share of a capacity.
 */
const CAPACITY = {
  mqtt: 37_825,
  mqtt5: 21_123,
  http: 7_750,
  coap: 7_975,
  lwm2m: 1_000,
  lorawan: 2_417,
  modbusSlaves: 200,
} as const;

/** The protocols driven at once; the fleet's capacity is shared between them. */
const PROTOCOLS = ["mqtt", "mqtt5", "http", "coap", "coaps", "lwm2m", "lorawan", "modbus"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** What the caller chooses. */
export interface SoakOptions {
  /** Length of the run, minutes (default 60). */
  minutes: number;
  /**
   * Share of the measured capacity offered in all (default 0.5): each of the PROTOCOLS gets `fraction / PROTOCOLS`
   * of its own capacity, since every capacity was measured with the whole machine to itself.
   */
  fraction?: number;
  /** Devices created, blocked and deleted through REST per minute (default 300). */
  restChurnPerMinute?: number;
  /** Check the RSS and heap slopes (default: runs of 30 minutes or more). */
  slopes?: boolean;
  /** A PostgreSQL server (its URL): the run makes a database there and runs two central nodes on it; else SQLite. */
  databaseUrl?: string;
  /** Print progress lines (default true). */
  log?: (line: string) => void;
}

/** A run's settings, all derived. */
export interface SoakPlan {
  readonly minutes: number;
  /** PostgreSQL server for two central nodes; undefined: one central node on SQLite. */
  readonly databaseUrl: string | undefined;
  readonly fraction: number;
  readonly runMs: number;
  /** Rate offered per protocol, messages per second. */
  readonly rates: Readonly<Record<Exclude<Protocol, "modbus">, number>>;
  readonly modbusSlaves: number;
  /** Latency windows: 10 minutes, or a tenth of a shorter run. */
  readonly windowMs: number;
  /** Between two samples of every process: a minute, or a twelfth of a shorter run (at least 5 s). */
  readonly sampleMs: number;
  /** Between two kill -9s: 10 minutes, or a sixth of a shorter run. */
  readonly killEveryMs: number;
  /** Churn runs in ticks of 10 s, each doing a sixth of a minute's churn. */
  readonly tickMs: number;
  readonly restChurnPerTick: number;
  /** Share of the MQTT devices dropped (and reconnecting) per minute. */
  readonly reconnectShare: number;
  /** Command TTL given to the central node, seconds. */
  readonly commandTtlS: number;
  readonly slopes: boolean;
  /** Samples before this are left out of the slopes: the first fifth of the run, and at least its first 10 minutes. */
  readonly slopeFromMs: number;
}

export function planOf(o: SoakOptions): SoakPlan {
  const minutes = o.minutes;
  const runMs = minutes * 60_000;
  const fraction = o.fraction ?? 0.5;
  const share = fraction / PROTOCOLS.length;
  const tickMs = 10_000;
  return {
    minutes,
    databaseUrl: o.databaseUrl,
    fraction,
    runMs,
    rates: {
      mqtt: CAPACITY.mqtt * share,
      mqtt5: CAPACITY.mqtt5 * share,
      http: CAPACITY.http * share,
      coap: CAPACITY.coap * share,
      coaps: 2,
      lwm2m: CAPACITY.lwm2m * share,
      lorawan: CAPACITY.lorawan * share,
    },
    modbusSlaves: Math.max(2, Math.min(247, Math.round(CAPACITY.modbusSlaves * share * 8))),
    windowMs: Math.min(600_000, runMs / 10),
    sampleMs: Math.max(5_000, Math.min(60_000, runMs / 12)),
    killEveryMs: Math.min(600_000, runMs / 6),
    tickMs,
    restChurnPerTick: Math.max(1, Math.round(((o.restChurnPerMinute ?? 300) * tickMs) / 60_000)),
    reconnectShare: 0.1,
    commandTtlS: Math.max(30, Math.min(600, Math.round(runMs / 6_000))),
    slopes: o.slopes ?? minutes >= 30,
    slopeFromMs: Math.max(runMs / 5, Math.min(600_000, runMs / 2)),
  };
}
