import { Worker } from "node:worker_threads";
import { listenError } from "@iot/config";
import type { Peer } from "./gateways.js";
import type { NetworkServer } from "./network-server.js";
import type { SendDatagram } from "./transmitter.js";
import type { LorawanUdp } from "./udp-listener.js";

/** UDP receive buffer, bytes: gateways push in bursts (a busy cell, forwarders catching up after an outage). */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * Bytes handed to the main thread and not yet read by the server, past which the thread drops datagrams unanswered
 * (as a full kernel buffer would): an overloaded server must not queue without bound.
 */
const BACKLOG_BYTES = 4 * RECEIVE_BUFFER_BYTES;

interface Datagrams {
  type: "datagrams";
  buffer: Uint8Array;
  lengths: number[];
  ports: number[];
  addresses: string[];
  acked: boolean[];
}

type ThreadMessage =
  Datagrams | { type: "listening"; port: number } | { type: "error" | "bindFailed"; message: string; code?: string };

/**
 * The packet-forwarder UDP socket in a thread of its own, so gateways get their PUSH_ACK and PULL_ACK within a
 * millisecond whatever the network server's event loop is doing (MIC checks, decryption, garbage collection, the
 * registry link): a gateway that misses ACKs counts the server as gone. Give the server `send`, then `listen`.
 * The server decodes every datagram as before and only skips acknowledging those the thread acknowledged.
 */
export class LorawanUdpThread {
  readonly #worker: Worker;
  readonly #onError: (err: Error) => void;
  #server: Pick<NetworkServer, "receive"> | undefined;
  #listening: { port: number; resolve: (port: number) => void; reject: (err: Error) => void } | undefined;

  /** Starts the thread; `onError` hears socket and send errors (logged, never fatal). */
  constructor(onError: (err: Error) => void) {
    this.#onError = onError;
    this.#worker = new Worker(new URL("./udp-thread-worker.mjs", import.meta.url), { execArgv: [] });
    this.#worker.on("message", (m: ThreadMessage) => this.#message(m));
    this.#worker.on("error", (err) => onError(err));
  }

  /** The server's `send`: the datagram goes out of the thread's socket (dropped before `listen` bound it). */
  readonly send: SendDatagram = (datagram, port, address) =>
    this.#worker.postMessage({ type: "send", datagram, port, address });

  /** Binds the socket and feeds its datagrams to `server`. */
  async listen(server: Pick<NetworkServer, "receive">, options: { port: number; host: string }): Promise<LorawanUdp> {
    this.#server = server;
    const port = await new Promise<number>((resolve, reject) => {
      this.#listening = { port: options.port, resolve, reject };
      this.#worker.postMessage({
        type: "bind",
        ...options,
        receiveBufferBytes: RECEIVE_BUFFER_BYTES,
        backlogBytes: BACKLOG_BYTES,
      });
    });
    return {
      port,
      close: async () => {
        const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
        this.#worker.postMessage({ type: "close" });
        await exited;
      },
    };
  }

  #message(m: ThreadMessage): void {
    switch (m.type) {
      case "datagrams": {
        const all = Buffer.from(m.buffer.buffer, m.buffer.byteOffset, m.buffer.byteLength);
        let offset = 0;
        for (let i = 0; i < m.lengths.length; i++) {
          const datagram = all.subarray(offset, offset + m.lengths[i]!);
          offset += m.lengths[i]!;
          const peer: Peer = { address: m.addresses[i]!, port: m.ports[i]! };
          this.#server?.receive(datagram, peer, m.acked[i]);
        }
        this.#worker.postMessage({ type: "read", bytes: all.length });
        return;
      }
      case "listening":
        this.#listening?.resolve(m.port);
        return;
      case "bindFailed": {
        const err = Object.assign(new Error(m.message), { code: m.code });
        this.#listening?.reject(listenError(err, "lorawan adapter", this.#listening.port, "IOT_LORA_UDP_PORT"));
        void this.#worker.terminate();
        return;
      }
      case "error":
        this.#onError(Object.assign(new Error(m.message), { code: m.code }));
    }
  }
}
