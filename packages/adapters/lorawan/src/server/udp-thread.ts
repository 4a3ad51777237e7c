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

/**
 * The thread's code (plain JavaScript, run with `eval`, so it needs no TypeScript loader). It owns the socket and
 * answers PUSH_DATA (12-byte header and a body) with PUSH_ACK and PULL_DATA (12 bytes) with PULL_ACK the moment they
 * arrive, as the Semtech protocol asks ("acknowledge immediately all the PUSH_DATA packets received"); whatever
 * arrived in one turn of its loop goes to the main thread as one message (one transferred buffer), flagged with
 * whether it was acknowledged. It sends what the main thread asks it to, and drops datagrams unanswered while
 * more than BACKLOG_BYTES wait for the main thread.
 */
const THREAD_SOURCE = `
const { createSocket } = require("node:dgram");
const { parentPort } = require("node:worker_threads");
const socket = createSocket({ type: "udp4", reuseAddr: false });
let bound = false;
let batch = [];
let bytes = 0;
let backlog = 0;
let backlogLimit = Infinity;
const flush = () => {
  const buffer = new Uint8Array(bytes);
  const lengths = [], ports = [], addresses = [], acked = [];
  let offset = 0;
  for (const [msg, rinfo, ack] of batch) {
    buffer.set(msg, offset);
    offset += msg.length;
    lengths.push(msg.length);
    ports.push(rinfo.port);
    addresses.push(rinfo.address);
    acked.push(ack);
  }
  backlog += bytes;
  batch = [];
  bytes = 0;
  parentPort.postMessage({ type: "datagrams", buffer, lengths, ports, addresses, acked }, [buffer.buffer]);
};
socket.on("message", (msg, rinfo) => {
  if (backlog + bytes > backlogLimit) return;
  let ack = 0;
  if (msg.length >= 4 && (msg[0] === 1 || msg[0] === 2)) {
    if (msg[3] === 0 && msg.length > 12) ack = 1;
    else if (msg[3] === 2 && msg.length === 12) ack = 4;
  }
  if (ack !== 0) socket.send(Buffer.from([msg[0], msg[1], msg[2], ack]), rinfo.port, rinfo.address);
  if (batch.length === 0) setImmediate(flush);
  batch.push([msg, rinfo, ack !== 0]);
  bytes += msg.length;
});
socket.on("error", (err) => parentPort.postMessage({ type: "error", message: err.message, code: err.code }));
parentPort.on("message", (m) => {
  if (m.type === "read") {
    backlog -= m.bytes;
  } else if (m.type === "send") {
    if (bound)
      socket.send(m.datagram, m.port, m.address, (err) => {
        if (err) parentPort.postMessage({ type: "error", message: err.message, code: err.code });
      });
  } else if (m.type === "bind") {
    const failed = (err) => parentPort.postMessage({ type: "bindFailed", message: err.message, code: err.code });
    socket.once("error", failed);
    socket.bind(m.port, m.host, () => {
      socket.off("error", failed);
      bound = true;
      backlogLimit = m.backlogBytes;
      try {
        socket.setRecvBufferSize(m.receiveBufferBytes);
      } catch {
        // The kernel caps it (net.core.rmem_max); the default buffer still works.
      }
      parentPort.postMessage({ type: "listening", port: socket.address().port });
    });
  } else if (m.type === "close") {
    socket.close(() => parentPort.close());
  }
});
`;

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
    this.#worker = new Worker(THREAD_SOURCE, { eval: true, execArgv: [] });
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
