import { counter, gauge, LATENCY_BUCKETS, tallyHistogram } from "@iot/config";
import type { ProtocolName } from "./registry-client.js";

/**
 * An adapter's Prometheus metrics, all labelled with its protocol. They are counted where every adapter's traffic
 * passes, the registry client (sessions, uplinks, acks, the uplink buffer, commands), so a new protocol gets them
 * without code of its own; `serveAdapterMetrics` (metrics-server.ts) serves them with the process metrics.
 */
export interface AdapterMetrics {
  /** Device sessions open on this adapter, from the live session list. */
  sessions(count: number): void;
  /** 1 while the registry link is up (Hello acknowledged), else 0. */
  registryConnected(up: boolean): void;
  /** One more (re)connection of the registry stream. */
  registryReconnect(): void;
  /** One Authenticate answer: ok, a refusal code (lowercase), or unavailable. */
  authentication(outcome: string): void;
  /** The fate of one uplink (or `count` of them): acked, rejected, rate_limited, buffer_full, too_large or closed. */
  uplink(outcome: string, count?: number): void;
  /** Seconds from an uplink's sending to the registry's ack (stored durably). */
  ackLatency(seconds: number): void;
  /**
   * Uplinks waiting for the registry's ack, and those waiting for room in the full buffer (MQTT QoS 1/2 devices held
   * back meanwhile); kept here, the gauges read them at scrape time.
   */
  bufferDepth(count: number, waiting?: number): void;
  /**
   * A command from the registry reached the adapter's handlers: it is pending until `command` reports its outcome
   * (a LoRaWAN class A device's command waits for its next uplink, an HTTP or CoAP device's for its next request).
   */
  commandReceived(): void;
  /** One command's delivery result as reported to the registry: delivered, sent, failed or queued (given back). */
  command(outcome: string): void;
}

/**
 * The latest buffer depth told per protocol, read by the gauge's collect at scrape time: setting a prom-client gauge
 * (labels checked and hashed, an object made) on every publish was a visible share of the MQTT adapter's profile.
 */
const bufferDepths = new Map<string, { count: number; waiting: number }>();

/** The metrics of one protocol's adapter (created on first use, shared by every client of that protocol). */
export function adapterMetrics(protocol: ProtocolName): AdapterMetrics {
  const p = { protocol };
  const sessions = gauge("iot_adapter_sessions", "Device sessions open on this adapter", ["protocol"]);
  const connected = gauge("iot_adapter_registry_connected", "1 while the link to the central node is up", ["protocol"]);
  const reconnects = counter("iot_adapter_registry_connects_total", "Registry stream (re)connections attempted", [
    "protocol",
  ]);
  const auths = counter(
    "iot_adapter_authentications_total",
    "Device authentications, by outcome (ok, a refusal code, unavailable)",
    ["protocol", "outcome"],
  );
  const uplinks = counter(
    "iot_adapter_uplinks_total",
    "Device uplinks, by outcome (acked, rejected, rate_limited, buffer_full, too_large, closed)",
    ["protocol", "outcome"],
  );
  // Observed once per acked uplink: counted in plain arrays (TallyHistogram), not by prom-client's observe.
  const ack = tallyHistogram(
    "iot_adapter_registry_ack_seconds",
    "Seconds from an uplink's sending to the central node's ack (after its durable write)",
    LATENCY_BUCKETS,
  ).series(p);
  gauge(
    "iot_adapter_uplink_buffer",
    "Uplinks awaiting the central node's ack (IOT_ADAPTER_BUFFER_LIMIT)",
    ["protocol"],
    function () {
      for (const [protocol, depth] of bufferDepths) this.set({ protocol }, depth.count);
    },
  );
  gauge(
    "iot_adapter_uplinks_waiting",
    "Uplinks waiting for room in the full uplink buffer; their MQTT devices are held back meanwhile",
    ["protocol"],
    function () {
      for (const [protocol, depth] of bufferDepths) this.set({ protocol }, depth.waiting);
    },
  );
  const depth = bufferDepths.get(protocol) ?? { count: 0, waiting: 0 };
  bufferDepths.set(protocol, depth);
  const commands = counter(
    "iot_adapter_commands_total",
    "Commands (downlinks) handled, by outcome reported to the registry (delivered, sent, failed, queued)",
    ["protocol", "outcome"],
  );
  const pending = gauge(
    "iot_adapter_commands_pending",
    "Commands handed to this adapter whose outcome it has not reported yet (waiting for the device)",
    ["protocol"],
  );
  // Present from the start (0), so a dashboard sees the series before the first event.
  sessions.set(p, 0);
  connected.set(p, 0);
  pending.inc(p, 0); // a count across every client of the protocol in the process: never set back to 0
  return {
    sessions: (n) => sessions.set(p, n),
    registryConnected: (up) => connected.set(p, up ? 1 : 0),
    registryReconnect: () => reconnects.inc(p),
    authentication: (outcome) => auths.inc({ protocol, outcome }),
    uplink: (outcome, count = 1) => uplinks.inc({ protocol, outcome }, count),
    ackLatency: (s) => ack.observe(s),
    bufferDepth: (n, waiting = 0) => {
      depth.count = n;
      depth.waiting = waiting;
    },
    commandReceived: () => pending.inc(p),
    command: (outcome) => {
      pending.dec(p);
      commands.inc({ protocol, outcome });
    },
  };
}
