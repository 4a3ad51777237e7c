import type { RecordChannel } from "./channel.js";
import type { Clock } from "./clock.js";
import { type FlightEntry, packFlight } from "./flight.js";

/** RFC 6347 §4.2.4.1: initial retransmission timer 1 s, doubled on each retransmission, at most 60 s. */
const INITIAL_RETRANSMIT_MS = 1000;
const MAX_RETRANSMIT_MS = 60_000;

/**
 * The server's last flight and its retransmission timer (RFC 6347 §4.2.4): sent whole again when the timer fires
 * while `pending()` holds, or when the peer repeats its own flight. The flight is dropped with {@link forget}.
 */
export class FlightSender {
  private flight: FlightEntry[] = [];
  private retransmitMs = INITIAL_RETRANSMIT_MS;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly channel: RecordChannel,
    private readonly clock: Clock,
    private readonly out: (datagram: Buffer) => void,
    private readonly mtu: number,
    private readonly pending: () => boolean,
  ) {}

  /** Sends a new flight; `retransmit`: until the peer's next flight arrives (not for one that ends the handshake). */
  send(entries: FlightEntry[], retransmit: boolean): void {
    this.flight = entries;
    this.transmit();
    if (retransmit) this.arm();
  }

  /** Sends the current flight again, packed into datagrams of at most the MTU and numbered anew. */
  transmit(): void {
    for (const d of packFlight(this.flight, this.channel, this.mtu)) this.out(d);
  }

  /** The peer's next flight arrived: no more retransmission. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  /** The handshake is over and its last flight no longer needed (the peer's repeated Finished gets no answer). */
  forget(): void {
    this.stop();
    this.flight = [];
  }

  private arm(): void {
    this.cancel = this.clock.setTimer(this.retransmitMs, () => {
      if (!this.pending()) return;
      this.retransmitMs = Math.min(this.retransmitMs * 2, MAX_RETRANSMIT_MS);
      this.transmit();
      this.arm();
    });
  }
}
