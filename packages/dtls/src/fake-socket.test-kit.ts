import type { Socket } from "node:dgram";
import { EventEmitter } from "node:events";

/** A datagram the server sent: where to and what. */
export interface SentDatagram {
  address: string;
  port: number;
  data: Buffer;
}

/**
 * A UDP socket in memory for driving {@link DtlsServer} with datagrams from any source address (spoofed ones
 * included, which a real socket on loopback cannot produce): `deliver` hands one in as the socket's "message" event
 * would, and what the server sends is kept in `sent`.
 */
export class FakeSocket extends EventEmitter {
  readonly sent: SentDatagram[] = [];

  send(data: Buffer, port: number, address: string): void {
    this.sent.push({ address, port, data });
  }

  deliver(data: Buffer, address: string, port: number): void {
    this.emit("message", data, { address, port, family: "IPv4", size: data.length });
  }

  /** The datagrams sent since the last call, and forgets them. */
  take(): SentDatagram[] {
    return this.sent.splice(0);
  }

  /** Typed as the node socket the server takes (it uses on, off and send). */
  asSocket(): Socket {
    return this as unknown as Socket;
  }
}
