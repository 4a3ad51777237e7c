/**
 * What the registry writes on one adapter's Connect stream: downlinks (batched per turn of the event loop for an
 * adapter whose Hello said it takes DownlinkBatch), uplink acks and rejections (one UplinkAck per turn, after the
 * durable writes), and every other message after the downlinks queued before it. It also counts the stream's
 * uplink outcomes (`iot_registry_uplinks_total`), one counter increment per outcome and turn, not per uplink.
 */
import {
  BATCH_MAX_BYTES,
  BATCH_MAX_ITEMS,
  create,
  DownlinkBatchSchema,
  DownlinkSchema,
  RegistryMessageSchema,
  type AdapterMessage,
  type Downlink,
  type RegistryMessage,
  type UplinkRejected,
  type grpc,
} from "@iot/proto";
import { protocolLabel, uplinksTotal } from "../ops/registry-metrics.js";
import type { DownlinkCommand } from "../sessions/session-table.js";

/** One adapter's Connect stream, server side. */
export type ConnectCall = grpc.ServerDuplexStream<AdapterMessage, RegistryMessage>;

/** The outgoing side of one adapter's Connect stream. */
export class AdapterOutbox {
  /** The stream ended: nothing more is written. */
  closed = false;
  /** The adapter's Hello said it takes DownlinkBatch. */
  takesDownlinkBatches = false;
  private downlinks: Downlink[] = [];
  private downlinkBytes = 0;
  private downlinkFlushQueued = false;
  private pendingAcks: bigint[] = [];
  private pendingRejects: UplinkRejected[] = [];
  private ackScheduled = false;
  /** Stored uplinks by outcome since the last flushAcks, counted there. */
  private readonly storedCounts = new Map<string, number>();

  /** `protocol`: the adapter's (from its Hello; 0 before), the label of its uplink counts. */
  constructor(
    private readonly call: ConnectCall,
    private readonly protocol: () => number,
  ) {}

  /** Writes after the downlinks queued before it (order matters: a command, then its device's kick). */
  send(kind: RegistryMessage["kind"]): void {
    if (this.downlinks.length > 0) this.flushDownlinks();
    this.write(kind);
  }

  /**
   * A command for a device of this adapter. For an adapter that takes DownlinkBatch it waits for the end of the
   * current turn of the event loop's synchronous work: a commit's commands, a group's members or a session's queued
   * commands go out as one stream message, without waiting for anything else.
   */
  sendDownlink(c: DownlinkCommand): void {
    const downlink = create(DownlinkSchema, {
      ...c,
      id: BigInt(c.id),
      deviceIntId: BigInt(c.deviceIntId),
      expiresAtMs: BigInt(c.expiresAt),
      properties: c.properties ?? "",
      loraMulticast: c.loraMulticast && {
        ...c.loraMulticast,
        frequencyHz: c.loraMulticast.frequencyHz === undefined ? undefined : BigInt(c.loraMulticast.frequencyHz),
        deviceIntIds: c.loraMulticast.deviceIntIds.map(BigInt),
      },
    });
    if (!this.takesDownlinkBatches) return this.send({ case: "downlink", value: downlink });
    this.downlinks.push(downlink);
    this.downlinkBytes += c.payload.byteLength + c.topic.length;
    if (this.downlinks.length >= BATCH_MAX_ITEMS || this.downlinkBytes >= BATCH_MAX_BYTES) this.flushDownlinks();
    else if (!this.downlinkFlushQueued) {
      this.downlinkFlushQueued = true;
      queueMicrotask(() => {
        this.downlinkFlushQueued = false;
        this.flushDownlinks();
      });
    }
  }

  /** Uplink `seq` is settled: acked (stored or a duplicate), or rejected with a reason; told at the turn's end. */
  ack(seq: bigint, rejected?: string): void {
    if (rejected === undefined) this.pendingAcks.push(seq);
    else {
      this.countUplink("rejected");
      this.pendingRejects.push({ $typeName: "iot.registry.v1.UplinkRejected", seq, reason: rejected });
    }
    if (!this.ackScheduled) {
      this.ackScheduled = true;
      setImmediate(() => this.flushAcks());
    }
  }

  /** An uplink was written with this outcome (counted with the turn's acks). */
  stored(outcome: string): void {
    this.storedCounts.set(outcome, (this.storedCounts.get(outcome) ?? 0) + 1);
  }

  /** Counts one uplink's outcome now. */
  countUplink(outcome: string): void {
    uplinksTotal().inc({ protocol: protocolLabel(this.protocol()), outcome });
  }

  private write(kind: RegistryMessage["kind"]): void {
    if (!this.closed) this.call.write(create(RegistryMessageSchema, { kind }));
  }

  private flushDownlinks(): void {
    const batch = this.downlinks;
    if (batch.length === 0) return;
    this.downlinks = [];
    this.downlinkBytes = 0;
    // A lone downlink goes as a plain Downlink: one of the largest size fits a stream message only without the
    // batch's envelope.
    if (batch.length === 1) this.write({ case: "downlink", value: batch[0]! });
    else this.write({ case: "downlinkBatch", value: create(DownlinkBatchSchema, { downlinks: batch }) });
  }

  private flushAcks(): void {
    this.ackScheduled = false;
    for (const [outcome, n] of this.storedCounts)
      uplinksTotal().inc({ protocol: protocolLabel(this.protocol()), outcome }, n);
    this.storedCounts.clear();
    if (this.pendingAcks.length === 0 && this.pendingRejects.length === 0) return;
    const [seqs, rejected] = [this.pendingAcks, this.pendingRejects];
    this.pendingAcks = [];
    this.pendingRejects = [];
    this.send({ case: "uplinkAck", value: { $typeName: "iot.registry.v1.UplinkAck", seqs, rejected } });
  }
}
