import { randomInt } from "node:crypto";
import type { Logger } from "pino";
import type { TxAck, TxPacket } from "../codec/radio-packet.js";
import { encodeSemtechPacket } from "../codec/semtech-udp.js";
import type { PullPath } from "./gateways.js";

/** Sends a datagram to a UDP peer; the socket belongs to whoever created the server. */
export type SendDatagram = (datagram: Buffer, port: number, address: string) => void;

/** What became of a PULL_RESP: scheduled by the gateway (or no TX_ACK expected), or refused with its error. */
export type TransmitOutcome = { ok: true } | { ok: false; error: string };

interface Waiting {
  readonly gatewayEui: string;
  readonly timer: NodeJS.Timeout;
  readonly resolve: (outcome: TransmitOutcome) => void;
}

/**
 * Sends txpks to gateways as PULL_RESP and pairs them with the TX_ACK that answers (protocol version 2; a version 1
 * gateway sends none, so its PULL_RESP counts as scheduled at once). A TX_ACK that does not come within
 * `ackTimeoutMs` counts as scheduled too: forwarders that skip it still send.
 */
export class Transmitter {
  readonly #waiting = new Map<number, Waiting>();
  /** PULL_RESPs sent, and the TX_ACKs that reported an error. */
  sent = 0;
  failed = 0;

  constructor(
    private readonly send: SendDatagram,
    private readonly log: Logger,
    private readonly ackTimeoutMs = 1_000,
  ) {}

  /** Sends `txpk` through the gateway at `path`; resolves with the gateway's TX_ACK verdict. */
  transmit(gatewayEui: string, path: PullPath, txpk: TxPacket): Promise<TransmitOutcome> {
    let token = randomInt(0, 0x10000);
    while (this.#waiting.has(token)) token = (token + 1) & 0xffff;
    const datagram = encodeSemtechPacket({ type: "PULL_RESP", version: path.version, token, txpk });
    if (!datagram.ok) return Promise.resolve({ ok: false, error: datagram.reason });
    this.send(datagram.value, path.port, path.address);
    this.sent++;
    if (path.version === 1) return Promise.resolve({ ok: true });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(token);
        resolve({ ok: true });
      }, this.ackTimeoutMs);
      timer.unref();
      this.#waiting.set(token, { gatewayEui, timer, resolve });
    });
  }

  /** A TX_ACK arrived: settles the PULL_RESP of the same token and gateway. */
  acknowledged(gatewayEui: string, token: number, ack: TxAck): void {
    const w = this.#waiting.get(token);
    if (!w || w.gatewayEui !== gatewayEui) {
      this.log.debug({ gatewayEui, token }, "TX_ACK for no pending downlink");
      return;
    }
    this.#waiting.delete(token);
    clearTimeout(w.timer);
    if (ack.warn) this.log.info({ gatewayEui, warn: ack.warn, value: ack.value }, "gateway changed the downlink");
    if (ack.error === "NONE") w.resolve({ ok: true });
    else {
      this.failed++;
      w.resolve({ ok: false, error: ack.error });
    }
  }

  /** Settles every waiting PULL_RESP as scheduled (the server is stopping). */
  close(): void {
    for (const w of this.#waiting.values()) {
      clearTimeout(w.timer);
      w.resolve({ ok: true });
    }
    this.#waiting.clear();
  }
}
