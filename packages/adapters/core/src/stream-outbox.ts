/**
 * What the registry client writes on its Connect stream, in order: sessions opened, uplinks and downlink results of
 * one turn of the event loop go out together as one batch message each when the stream's registry takes them (its
 * HelloAck said so), and a message sent after them waits for them (a session's SessionOpened before its uplinks, an
 * uplink before its session's close). Results that found no stream are kept for the next one.
 */
import { BATCH_MAX_BYTES, BATCH_MAX_ITEMS, type AdapterMessage, type HelloAck, type SessionOpened } from "@iot/proto";
import type { Logger } from "pino";
import {
  downlinkResultMessage,
  downlinkResultsMessage,
  sessionOpenedMessage,
  sessionOpenedValue,
  sessionsOpenedMessage,
  uplinkBatchMessage,
  uplinkMessage,
  uplinkValue,
  type DownlinkResultInit,
  type UplinkInit,
} from "./grpc-convert.js";
import type { LiveSession } from "./live-sessions.js";
import type { ConnectCall } from "./registry-grpc-calls.js";
import type { Uplink } from "./registry-client.js";

/** The Connect stream's outgoing side: batching per turn of the event loop, ordering, unsent results. */
export class StreamOutbox {
  /** The registry of this stream said (HelloAck) that it takes UplinkBatch messages. */
  private uplinkBatches = false;
  /** The registry of this stream said (HelloAck) that it takes DownlinkResultBatch messages. */
  private resultBatches = false;
  /** The registry of this stream said (HelloAck) that it takes SessionOpenedBatch messages. */
  private openedBatches = false;
  /** Sessions opened in this turn of the event loop, sent together as one SessionOpenedBatch before anything else. */
  private opened: SessionOpened[] = [];
  private openedFlush: NodeJS.Immediate | undefined;
  /** Uplinks of this turn of the event loop, sent together as one UplinkBatch when it ends. */
  private outgoing: UplinkInit[] = [];
  private outgoingBytes = 0;
  private outgoingFlush: NodeJS.Immediate | undefined;
  /** Downlink results of this turn of the event loop, sent together as one DownlinkResultBatch when it ends. */
  private results: DownlinkResultInit[] = [];
  private resultsFlush: NodeJS.Immediate | undefined;
  private unsentResults: AdapterMessage[] = [];

  /**
   * @param stream the Connect stream in use, if any.
   * @param unsentLimit most downlink results kept while there is no stream (the oldest dropped past it).
   */
  constructor(
    private readonly stream: () => ConnectCall | undefined,
    private readonly unsentLimit: number,
    private readonly log: Logger,
  ) {}

  /**
   * A new stream: until its HelloAck, everything goes singly. Uplinks queued for the old stream are in the uplink
   * buffer (the replay sends them), sessions opened but not yet sent are in the Hello (it lists every live session),
   * results queued for it are kept for `sendUnsent`.
   */
  reset(): void {
    this.uplinkBatches = false;
    this.resultBatches = false;
    this.openedBatches = false;
    clearImmediate(this.resultsFlush);
    this.resultsFlush = undefined;
    for (const r of this.results.splice(0)) this.keepUnsent(downlinkResultMessage(r));
    clearImmediate(this.outgoingFlush);
    this.outgoingFlush = undefined;
    this.outgoing = [];
    this.outgoingBytes = 0;
    clearImmediate(this.openedFlush);
    this.openedFlush = undefined;
    this.opened = [];
  }

  /** The stream's registry answered Hello: the batch messages it takes. */
  accept(ack: HelloAck): void {
    this.uplinkBatches = ack.uplinkBatches;
    this.resultBatches = ack.downlinkResultBatches;
    this.openedBatches = ack.sessionOpenedBatches;
  }

  /** A session opened: a connect storm opens thousands a second, those of one turn go as one stream message. */
  sessionOpened(live: LiveSession): void {
    if (!this.stream() || !this.openedBatches) {
      this.send(sessionOpenedMessage(live));
      return;
    }
    if (this.opened.push(sessionOpenedValue(live)) >= BATCH_MAX_ITEMS) this.flushOpened();
    else this.openedFlush ??= setImmediate(() => this.flushOpened());
  }

  /**
   * Sends an uplink with the others of this turn of the event loop, in one UplinkBatch when the registry takes them.
   * Without a stream it is only buffered: the replay after the next Hello sends it.
   */
  uplink(seq: number, uplink: Uplink): void {
    if (!this.stream()) return;
    if (!this.uplinkBatches) {
      this.send(uplinkMessage(seq, uplink));
      return;
    }
    this.outgoing.push(uplinkValue(seq, uplink));
    this.outgoingBytes += uplink.payload.byteLength + uplink.topic.length + (uplink.metadata?.length ?? 0);
    if (this.outgoing.length >= BATCH_MAX_ITEMS || this.outgoingBytes >= BATCH_MAX_BYTES) this.flushUplinks();
    else this.outgoingFlush ??= setImmediate(() => this.flushUplinks());
  }

  /** A downlink's outcome, with the others of this turn (a group command's acknowledgements come in bursts). */
  result(result: DownlinkResultInit): void {
    if (this.stream() && this.resultBatches) {
      if (this.results.push(result) >= BATCH_MAX_ITEMS) this.flushResults();
      else this.resultsFlush ??= setImmediate(() => this.flushResults());
      return;
    }
    const message = downlinkResultMessage(result);
    if (!this.send(message)) this.keepUnsent(message);
  }

  /** Sends the results gathered so far (kept for the next stream when this one is gone). */
  flushResults(): void {
    clearImmediate(this.resultsFlush);
    this.resultsFlush = undefined;
    const results = this.results.splice(0);
    if (results.length > 0 && !this.send(downlinkResultsMessage(results)))
      for (const r of results) this.keepUnsent(downlinkResultMessage(r));
  }

  /** Sends the results that found no stream (after the new stream's Hello and replay). */
  sendUnsent(): void {
    const results = this.unsentResults;
    this.unsentResults = [];
    for (const r of results) this.send(r);
  }

  /** Writes to the stream after the sessions and uplinks queued before it; false when there is no stream. */
  send(message: AdapterMessage): boolean {
    this.flushOpened();
    if (this.outgoing.length > 0) this.flushUplinks();
    return this.write(message);
  }

  /** Writes to the current stream now; false when there is none (the next Hello/replay covers it). */
  write(message: Parameters<ConnectCall["write"]>[0]): boolean {
    const call = this.stream();
    if (!call) return false;
    try {
      call.write(message);
      return true;
    } catch (err) {
      this.log.warn({ err }, "write to registry stream failed");
      return false;
    }
  }

  /** Sends the sessions opened so far; a session's SessionOpened always goes before its uplinks and its close. */
  private flushOpened(): void {
    clearImmediate(this.openedFlush);
    this.openedFlush = undefined;
    const sessions = this.opened;
    if (sessions.length === 0) return;
    this.opened = [];
    this.write(sessionsOpenedMessage(sessions));
  }

  private flushUplinks(): void {
    this.flushOpened();
    clearImmediate(this.outgoingFlush);
    this.outgoingFlush = undefined;
    const uplinks = this.outgoing;
    if (uplinks.length === 0) return;
    this.outgoing = [];
    this.outgoingBytes = 0;
    this.write(uplinkBatchMessage(uplinks));
  }

  /** A result that found no stream: sent after the next Hello (the oldest dropped past the limit). */
  private keepUnsent(message: AdapterMessage): void {
    this.unsentResults.push(message);
    if (this.unsentResults.length > this.unsentLimit) this.unsentResults.shift();
  }
}
