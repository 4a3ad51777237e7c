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
  readonly messageId: number;
  readonly qos: 1 | 2;
}

const failed = (message: string): DownlinkOutcome => ({ status: "FAILED", message });

/**
 * Follows one QoS 1 or 2 command from its PUBLISH to its outcome, on the device's packets:
 *
 * - QoS 1: DELIVERED on PUBACK; FAILED when none comes within the ack timeout.
 * - QoS 2: PUBLISH → PUBREC → PUBREL → PUBCOMP (MQTT 3.1.1 §4.3.3, MQTT 5.0 §4.3.3), DELIVERED on PUBCOMP: the
 *   client libraries devices use (libmosquitto, paho, MQTT.js) hand the message to the application when PUBREL
 *   comes and answer PUBCOMP after, so PUBCOMP is the device's "I have it", PUBREC only "I stored it". A PUBREC with
 *   a reason code ≥ 0x80 (MQTT 5.0) is a refusal: FAILED, no PUBREL.
 *
 * A connection that ends before the flow does gives the command back to the registry (QUEUED), which sends it to the
 * device's next session on whichever adapter it reaches: after PUBREC always with its packet identifier, so that only
 * PUBREL goes again (MQTT 5.0 §4.3.3, §4.4: the PUBLISH is never sent again); before it, in a persistent session,
 * with its packet identifier too, so the PUBLISH goes again with it and DUP 1 (MQTT-4.4.0-1). A clean session threw
 * away what it had: a QoS 1 command is then FAILED, a QoS 2 one before PUBREC goes as a new message.
 *
 * Each step waits at most the ack timeout while the device is connected.
 */
export class AckFlow implements AwaitedAck {
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  /** `released`: the device answered PUBREC on an earlier connection (QoS 2); only PUBREL goes (`release`). */
  constructor(
    private readonly ctx: AdapterContext,
    private readonly state: ClientState,
    private readonly cmd: AckFlowCommand,
    private readonly resolve: (outcome: DownlinkOutcome) => void,
    private released = false,
  ) {
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
    const resume = { packetId: this.cmd.messageId, released: this.released };
    if (this.released)
      return this.settle({ status: "QUEUED", message: "device disconnected before its PUBCOMP", resume });
    if (this.state.persistent)
      return this.settle({ status: "QUEUED", message: `device disconnected before its ${this.awaited()}`, resume });
    if (this.cmd.qos === 1) return this.settle(failed("device disconnected before its PUBACK"));
    this.settle({ status: "QUEUED", message: "device disconnected before its PUBREC" });
  }

  /** A flow past PUBREC on an earlier connection: PUBREL once this connection's CONNACK is out, then PUBCOMP. */
  release(client: Client): void {
    this.state.afterConnack(() => {
      if (this.done || client.closed) return; // dropped() gives it back
      const version = this.state.connect.protocolVersion;
      const pubrel = mqttPacket.generate(
        { cmd: "pubrel", messageId: this.cmd.messageId, ...(version === 5 ? { reasonCode: 0 } : {}) },
        { protocolVersion: version },
      );
      client.conn.write(pubrel);
      this.wait("PUBCOMP");
    });
  }

  private awaited(): string {
    return this.cmd.qos === 1 ? "PUBACK" : "PUBREC";
  }

  private wait(what: string): void {
    clearTimeout(this.timer);
    const ms = this.ctx.downlinkAckTimeoutMs;
    this.timer = setTimeout(() => this.settle(failed(`no ${what} within ${ms} ms`)), ms);
  }

  /** Ends the flow with `outcome`, once, leaving the connection's table of awaited acknowledgements. */
  settle(outcome: DownlinkOutcome): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    if (this.state.awaitingAck.get(this.cmd.messageId) === this) this.state.awaitingAck.delete(this.cmd.messageId);
    this.resolve(outcome);
  }
}
