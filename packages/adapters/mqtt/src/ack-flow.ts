import type { Client } from "aedes";
import mqttPacket from "mqtt-packet";
import type { DownlinkOutcome } from "@iot/adapter-core";
import type { AwaitedAck, ClientState } from "./client-table.js";
import type { AdapterContext } from "./context.js";

/**
 * Longest delay a Node.js timer takes, ms (a longer one fires at once): a command with a later expiry is given back
 * (QUEUED) after this long, and the registry sends it again while it is still valid.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a downlink's flow needs to know of its command. */
export interface AckFlowCommand {
  readonly deviceIntId: number;
  readonly messageId: number;
  readonly qos: 1 | 2;
  /** Epoch ms, 0 = no limit. */
  readonly expiresAtMs: number;
}

const failed = (message: string): DownlinkOutcome => ({ status: "FAILED", message });

/**
 * Follows one QoS 1 or 2 command from its PUBLISH to its outcome, on the device's packets:
 *
 * - QoS 1: DELIVERED on PUBACK; FAILED when none comes within the ack timeout or before the connection ends.
 * - QoS 2: PUBLISH → PUBREC → PUBREL → PUBCOMP (MQTT 3.1.1 §4.3.3, MQTT 5.0 §4.3.3), DELIVERED on PUBCOMP: the
 *   client libraries devices use (libmosquitto, paho, MQTT.js) hand the message to the application when PUBREL
 *   comes and answer PUBCOMP after, so PUBCOMP is the device's "I have it", PUBREC only "I stored it".
 *   Before PUBREC, a connection that ends gives the command back (QUEUED): sessions are clean, so the device threw
 *   away what it had stored, and its next connection gets the command as a new message (new packet identifier,
 *   DUP 0). After PUBREC the PUBLISH is never sent again (MQTT 5.0 §4.3.3, §4.4): the flow waits for the device's next
 *   connection to this adapter, sends PUBREL again with the same packet identifier after its CONNACK, and settles on
 *   its PUBCOMP; FAILED if the command expires first. A PUBREC with a reason code ≥ 0x80 (MQTT 5.0) is a refusal:
 *   FAILED, no PUBREL.
 *
 * Each step waits at most the ack timeout while the device is connected.
 */
export class AckFlow implements AwaitedAck {
  private state: ClientState;
  private timer: NodeJS.Timeout | undefined;
  /** PUBREC arrived (QoS 2). */
  private released = false;
  private done = false;
  private forget: (() => void) | undefined;

  constructor(
    private readonly ctx: AdapterContext,
    state: ClientState,
    private readonly cmd: AckFlowCommand,
    private readonly resolve: (outcome: DownlinkOutcome) => void,
  ) {
    this.state = state;
    state.awaitingAck.set(cmd.messageId, this);
  }

  /** The PUBLISH went out: the device's first answer is awaited. */
  written(): void {
    if (!this.done && !this.released) this.wait(this.cmd.qos === 1 ? "PUBACK" : "PUBREC");
  }

  acked(cmd: "puback" | "pubcomp"): void {
    if (this.cmd.qos === 1 ? cmd === "puback" : cmd === "pubcomp" && this.released)
      this.settle({ status: "DELIVERED" });
  }

  received(reasonCode: number): void {
    if (this.cmd.qos !== 2 || this.released) return;
    if (reasonCode >= 0x80)
      return this.settle(failed(`the device refused it (PUBREC reason code 0x${reasonCode.toString(16)})`));
    this.released = true;
    this.wait("PUBCOMP");
  }

  dropped(): void {
    if (this.cmd.qos === 1) return this.settle(failed("device disconnected before its PUBACK"));
    if (!this.released) return this.settle({ status: "QUEUED", message: "device disconnected before its PUBREC" });
    this.detach();
    // A newer connection of the device replaced this one (it came back before this one was seen to end).
    const newer = this.ctx.clients.ofDevice(this.cmd.deviceIntId).at(-1);
    const newerState = this.ctx.clients.state(newer);
    if (newer && newerState && newerState !== this.state && newerState.phase === "open")
      return this.resume(newer, newerState);
    this.forget = this.ctx.clients.carry(this.cmd.deviceIntId, this.cmd.messageId, (client, state) =>
      this.resume(client, state),
    );
    const { expiresAtMs } = this.cmd;
    const left = expiresAtMs > 0 ? Math.min(Math.max(expiresAtMs - Date.now(), 0), MAX_TIMER_MS) : MAX_TIMER_MS;
    this.timer = setTimeout(
      () => this.settle(failed("the device did not reconnect for its PUBREL before the command expired")),
      left,
    );
    this.timer.unref();
  }

  /** The device connected again: PUBREL once its CONNACK is out, then PUBCOMP awaited. */
  private resume(client: Client, state: ClientState): void {
    this.forget = undefined;
    clearTimeout(this.timer);
    this.state = state;
    state.awaitingAck.set(this.cmd.messageId, this);
    state.afterConnack(() => {
      if (this.done || client.closed) return;
      const version = state.connect.protocolVersion;
      const pubrel = mqttPacket.generate(
        { cmd: "pubrel", messageId: this.cmd.messageId, ...(version === 5 ? { reasonCode: 0 } : {}) },
        { protocolVersion: version },
      );
      client.conn.write(pubrel);
      this.wait("PUBCOMP");
    });
  }

  private wait(what: string): void {
    clearTimeout(this.timer);
    const ms = this.ctx.downlinkAckTimeoutMs;
    this.timer = setTimeout(() => this.settle(failed(`no ${what} within ${ms} ms`)), ms);
  }

  /** Leaves the connection's table of awaited acknowledgements. */
  private detach(): void {
    clearTimeout(this.timer);
    if (this.state.awaitingAck.get(this.cmd.messageId) === this) this.state.awaitingAck.delete(this.cmd.messageId);
  }

  /** Ends the flow with `outcome`, once. */
  settle(outcome: DownlinkOutcome): void {
    if (this.done) return;
    this.done = true;
    this.detach();
    this.forget?.();
    this.resolve(outcome);
  }
}
