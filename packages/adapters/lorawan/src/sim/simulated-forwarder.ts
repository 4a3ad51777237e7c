// A Semtech UDP packet forwarder (Lora-net/packet_forwarder, protocol versions 1 and 2) in software, on a real UDP
// socket: keepalives (PULL_DATA), uplinks and status (PUSH_DATA), the downlinks the server sends (PULL_RESP) and
// their TX_ACK, with a concentrator µs counter that wraps at 2^32 like a real one. For tests, the CLI simulator and
// the benchmark; datagrams are written and read by the package's Semtech codec.
import { createSocket, type Socket } from "node:dgram";
import { EventEmitter } from "node:events";
import { randomInt } from "node:crypto";
import type { GatewayStat, TxAck, TxAckError, TxPacket } from "../codec/radio-packet.js";
import { decodeSemtechPacket, encodeSemtechPacket, type SemtechPacket } from "../codec/semtech-udp.js";
import { parseDataFrame, type DataFrame } from "../codec/uplink.js";

/** How a simulated gateway is set up. */
export interface SimulatedForwarderOptions {
  /** Gateway EUI, 16 hex digits. */
  gatewayEui: string;
  /** The network server's UDP port and host (default 127.0.0.1). */
  port: number;
  host?: string;
  /** Local address to bind (default 127.0.0.1 when `host` is loopback, else all interfaces); the port is ephemeral. */
  localAddress?: string;
  /** Protocol version (default 2; 1 sends no TX_ACK). */
  version?: 1 | 2;
  /** PULL_DATA interval in ms once started (default 10,000; 0: only explicit {@link SimulatedForwarder.pull}). */
  keepaliveMs?: number;
  /** How long push/pull wait for their ACK before rejecting, ms (default 1,000). */
  ackTimeoutMs?: number;
  /** Value of the µs counter at creation (default random), e.g. 2^32 − 500,000 to test the wrap. */
  tmstStart?: number;
  /** TX_ACK error of each downlink not taken from {@link SimulatedForwarder.failNextTxAck}; default NONE. */
  txAck?: (downlink: ForwarderDownlink) => TxAck | TxAckError;
  /** Answer TOO_LATE to a txpk whose tmst has already passed on the gateway's counter (default false). */
  checkTiming?: boolean;
}

/** A frame the gateway heard, with its radio metadata (defaults: 868.1 MHz, SF7BW125, −60 dBm, 7 dB). */
export interface HeardFrame {
  data: Buffer;
  /** MHz. */
  freq?: number;
  datr?: string;
  codr?: string;
  rssi?: number;
  lsnr?: number;
  /** Default: the gateway's counter now. */
  tmst?: number;
  chan?: number;
  rfch?: number;
  /** CRC status (default 1). */
  stat?: 1 | 0 | -1;
  time?: string;
  /** GPS time of reception, ms since the GPS epoch (a GPS-synchronised gateway). */
  tmms?: number;
}

/** A PULL_RESP received: the txpk, its frame, and the TX_ACK the gateway answered. */
export interface ForwarderDownlink {
  token: number;
  txpk: TxPacket;
  /** The PHYPayload to send. */
  data: Buffer;
  /** The MHDR MType (1 JoinAccept, 3/5 data down). */
  mType: number;
  /** The data frame's header when it is one (a JoinAccept is encrypted and has none). */
  frame?: DataFrame;
  /** When to send (µs counter), absent for `imme`. */
  tmst?: number;
  freq: number;
  datr: string | number;
  /** The gateway's counter when the PULL_RESP arrived. */
  receivedTmst: number;
  /** The TX_ACK sent (version 2). */
  txAck?: TxAck;
}

/** Events of {@link SimulatedForwarder}. */
export interface SimulatedForwarderEvents {
  downlink: [ForwarderDownlink];
  pullAck: [{ token: number; rttMs: number }];
  pushAck: [{ token: number; rttMs: number }];
  /** A datagram from the server that the codec refused, or an ACK nobody waited for. */
  unexpected: [{ reason: string; datagram: Buffer }];
  error: [Error];
}

interface Waiter {
  resolve(rttMs: number): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  sentAt: number;
}

const DEFAULT_RADIO = { freq: 868.1, datr: "SF7BW125", codr: "4/5", rssi: -60, lsnr: 7 };

/** A simulated packet-forwarder gateway on its own UDP socket. */
export class SimulatedForwarder extends EventEmitter<SimulatedForwarderEvents> {
  readonly gatewayEui: string;
  readonly version: 1 | 2;
  /** Counters since the last `stat` (the packet forwarder's rxnb, rxok, dwnb, txnb) and ACKed pushes. */
  readonly counters = { rxnb: 0, rxok: 0, pushed: 0, pushAcked: 0, dwnb: 0, txnb: 0 };
  private readonly socket: Socket;
  private readonly options: SimulatedForwarderOptions;
  private readonly t0 = process.hrtime.bigint();
  private readonly tmstStart: number;
  private token = randomInt(0x10000);
  private readonly waiters = new Map<string, Waiter>();
  private keepalive?: NodeJS.Timeout;
  private readonly queue: ForwarderDownlink[] = [];
  private readonly takers: ((d: ForwarderDownlink | undefined) => void)[] = [];
  private readonly txAckErrors: (TxAck | TxAckError)[] = [];
  private closed = false;
  private bound?: Promise<void>;

  constructor(options: SimulatedForwarderOptions) {
    super();
    if (!/^[0-9a-fA-F]{16}$/.test(options.gatewayEui))
      throw new Error(`gateway EUI "${options.gatewayEui}" must be 16 hex digits`);
    this.gatewayEui = options.gatewayEui.toLowerCase();
    this.version = options.version ?? 2;
    this.options = options;
    this.tmstStart = (options.tmstStart ?? randomInt(0xffffffff)) >>> 0;
    this.socket = createSocket("udp4");
    this.socket.on("message", (msg) => this.onMessage(msg));
    this.socket.on("error", (e) => this.emit("error", e));
  }

  /** The concentrator's µs counter now (wraps at 2^32). */
  get tmst(): number {
    return (this.tmstStart + Number((process.hrtime.bigint() - this.t0) / 1000n)) >>> 0;
  }

  /** The local UDP port (after {@link start} or the first send). */
  get localPort(): number {
    return this.socket.address().port;
  }

  /** Binds the socket, sends a first PULL_DATA and waits for its PULL_ACK, then keeps sending them. */
  async start(): Promise<void> {
    await this.bind();
    await this.pull();
    this.startKeepalive();
  }

  /** Sends PULL_DATA every `keepaliveMs` (a missed PULL_ACK is reported as an `unexpected` event, not thrown). */
  startKeepalive(): void {
    const every = this.options.keepaliveMs ?? 10_000;
    if (this.keepalive || every <= 0 || this.closed) return;
    this.keepalive = setInterval(() => {
      this.pull().catch((e: Error) => this.emit("unexpected", { reason: e.message, datagram: Buffer.alloc(0) }));
    }, every);
    this.keepalive.unref();
  }

  /** Stops the keepalives: the server should take the gateway offline. */
  stopKeepalive(): void {
    clearInterval(this.keepalive);
    this.keepalive = undefined;
  }

  /** One PULL_DATA; resolves with the round trip in ms when its PULL_ACK arrives. */
  async pull(): Promise<number> {
    const token = this.nextToken();
    return this.sendAndWait({ type: "PULL_DATA", version: this.version, token, gatewayEui: this.gatewayEui }, "PULL");
  }

  /** One PUSH_DATA with the frames heard (and a stat if given); resolves with the round trip of its PUSH_ACK. */
  async push(frames: HeardFrame | HeardFrame[], stat?: GatewayStat): Promise<number> {
    const list = Array.isArray(frames) ? frames : [frames];
    const now = this.tmst;
    const rxpk = list.map((f) => ({
      tmst: f.tmst ?? now,
      freq: f.freq ?? DEFAULT_RADIO.freq,
      chan: f.chan ?? 0,
      rfch: f.rfch ?? 0,
      stat: f.stat ?? 1,
      modu: "LORA" as const,
      datr: f.datr ?? DEFAULT_RADIO.datr,
      codr: f.codr ?? DEFAULT_RADIO.codr,
      rssi: f.rssi ?? DEFAULT_RADIO.rssi,
      lsnr: f.lsnr ?? DEFAULT_RADIO.lsnr,
      size: f.data.length,
      data: f.data,
      ...(f.time === undefined ? {} : { time: f.time }),
      ...(f.tmms === undefined ? {} : { tmms: f.tmms }),
    }));
    this.counters.rxnb += list.length;
    this.counters.rxok += list.filter((f) => (f.stat ?? 1) === 1).length;
    const token = this.nextToken();
    const packet: SemtechPacket = {
      type: "PUSH_DATA",
      version: this.version,
      token,
      gatewayEui: this.gatewayEui,
      rxpk,
      ignored: [],
    };
    if (stat) packet.stat = stat;
    this.counters.pushed++;
    const rtt = await this.sendAndWait(packet, "PUSH");
    this.counters.pushAcked++;
    return rtt;
  }

  /** A stat-only PUSH_DATA with the counters since the last one (and `extra` fields: position, temperature). */
  async sendStat(extra: GatewayStat = {}): Promise<number> {
    const c = this.counters;
    const stat: GatewayStat = {
      time: new Date()
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, " GMT"),
      rxnb: c.rxnb,
      rxok: c.rxok,
      rxfw: c.rxok,
      ackr: c.pushed === 0 ? 100 : Math.round((c.pushAcked / c.pushed) * 1000) / 10,
      dwnb: c.dwnb,
      txnb: c.txnb,
      ...extra,
    };
    Object.assign(c, { rxnb: 0, rxok: 0, dwnb: 0, txnb: 0 });
    return this.push([], stat);
  }

  /** Sends raw bytes to the server (malformed datagrams, foreign protocols). */
  async sendRaw(datagram: Buffer): Promise<void> {
    await this.bind();
    await new Promise<void>((resolve, reject) =>
      this.socket.send(datagram, this.options.port, this.options.host ?? "127.0.0.1", (e) =>
        e ? reject(e) : resolve(),
      ),
    );
  }

  /** The TX_ACK of the next downlinks, in order (e.g. "TOO_LATE"), before falling back to the `txAck` option. */
  failNextTxAck(...errors: (TxAck | TxAckError)[]): void {
    this.txAckErrors.push(...errors);
  }

  /** The next downlink (queued ones first), or a rejection after `timeoutMs` (default 5,000). */
  nextDownlink(timeoutMs = 5_000): Promise<ForwarderDownlink> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const take = (d: ForwarderDownlink | undefined) => {
        clearTimeout(timer);
        if (d) resolve(d);
        else reject(new Error(`gateway ${this.gatewayEui} closed before a downlink arrived`));
      };
      const timer = setTimeout(() => {
        const i = this.takers.indexOf(take);
        if (i >= 0) this.takers.splice(i, 1);
        reject(new Error(`no downlink reached gateway ${this.gatewayEui} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.takers.push(take);
    });
  }

  /** The downlinks as they arrive, until {@link close}. */
  async *downlinks(): AsyncGenerator<ForwarderDownlink> {
    while (!this.closed || this.queue.length > 0) {
      const next = this.queue.shift() ?? (await new Promise<ForwarderDownlink | undefined>((r) => this.takers.push(r)));
      if (!next) return;
      yield next;
    }
  }

  /** Stops keepalives, rejects pending waits and closes the socket. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopKeepalive();
    for (const [k, w] of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error(`gateway ${this.gatewayEui} closed`));
      this.waiters.delete(k);
    }
    for (const take of this.takers.splice(0)) take(undefined);
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private bind(): Promise<void> {
    const host = this.options.host ?? "127.0.0.1";
    const loopback = host === "localhost" || host.startsWith("127.");
    const address = this.options.localAddress ?? (loopback ? "127.0.0.1" : undefined);
    this.bound ??= new Promise<void>((resolve) => this.socket.bind(0, address, () => resolve()));
    return this.bound;
  }

  private nextToken(): number {
    this.token = (this.token + 1) & 0xffff;
    return this.token;
  }

  private async sendAndWait(packet: SemtechPacket, kind: "PUSH" | "PULL"): Promise<number> {
    const bytes = encodeSemtechPacket(packet);
    if (!bytes.ok) throw new Error(bytes.reason);
    const key = `${kind}:${packet.token}`;
    const timeoutMs = this.options.ackTimeoutMs ?? 1_000;
    const acked = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`no ${kind}_ACK for token ${packet.token} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(key, { resolve, reject, timer, sentAt: performance.now() });
    });
    await this.sendRaw(bytes.value);
    return acked;
  }

  private onMessage(msg: Buffer): void {
    const decoded = decodeSemtechPacket(msg);
    if (!decoded.ok) return void this.emit("unexpected", { reason: decoded.reason, datagram: msg });
    const p = decoded.value;
    if (p.type === "PUSH_ACK" || p.type === "PULL_ACK") {
      const kind = p.type === "PUSH_ACK" ? "PUSH" : "PULL";
      const w = this.waiters.get(`${kind}:${p.token}`);
      if (!w) return void this.emit("unexpected", { reason: `${p.type} for unknown token ${p.token}`, datagram: msg });
      this.waiters.delete(`${kind}:${p.token}`);
      clearTimeout(w.timer);
      const rttMs = performance.now() - w.sentAt;
      w.resolve(rttMs);
      this.emit(p.type === "PUSH_ACK" ? "pushAck" : "pullAck", { token: p.token, rttMs });
      return;
    }
    if (p.type !== "PULL_RESP")
      return void this.emit("unexpected", { reason: `${p.type} from a server`, datagram: msg });
    this.onPullResp(p.token, p.txpk);
  }

  private onPullResp(token: number, txpk: TxPacket): void {
    this.counters.dwnb++;
    const frame = parseDataFrame(txpk.data);
    const d: ForwarderDownlink = {
      token,
      txpk,
      data: txpk.data,
      mType: txpk.data[0]! >> 5,
      freq: txpk.freq,
      datr: txpk.datr,
      receivedTmst: this.tmst,
    };
    if (frame.ok) d.frame = frame.value;
    if (txpk.tmst !== undefined) d.tmst = txpk.tmst;
    if (this.version === 2) {
      const chosen = this.txAckErrors.shift() ?? this.timingError(d) ?? this.options.txAck?.(d) ?? "NONE";
      d.txAck = typeof chosen === "string" ? { error: chosen } : chosen;
      if (d.txAck.error === "NONE") this.counters.txnb++;
      const ack = encodeSemtechPacket({ type: "TX_ACK", version: 2, token, gatewayEui: this.gatewayEui, ack: d.txAck });
      if (ack.ok) this.sendRaw(ack.value).catch((e: Error) => this.emit("error", e));
    } else this.counters.txnb++;
    this.emit("downlink", d);
    const take = this.takers.shift();
    if (take) take(d);
    else {
      this.queue.push(d);
      if (this.queue.length > 1_000) this.queue.shift();
    }
  }

  private timingError(d: ForwarderDownlink): TxAckError | undefined {
    if (!this.options.checkTiming || d.tmst === undefined) return undefined;
    const ahead = (d.tmst - d.receivedTmst) >>> 0;
    return ahead > 0x80000000 ? "TOO_LATE" : undefined;
  }
}

/** One frame heard by several gateways at once, each with its own signal (e.g. three gateways, one best). */
export function hearOnAll(
  frame: Omit<HeardFrame, "rssi" | "lsnr">,
  heard: { forwarder: SimulatedForwarder; rssi: number; lsnr: number }[],
): Promise<number[]> {
  return Promise.all(heard.map((h) => h.forwarder.push({ ...frame, rssi: h.rssi, lsnr: h.lsnr })));
}
