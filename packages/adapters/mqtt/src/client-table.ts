import type { Client } from "aedes";
import type { Socket } from "node:net";
import type { DeviceSession, StoredSubscription } from "@iot/adapter-core";
import { OutboundTopicAliases } from "./topic-aliases.js";

/** What the CONNECT packet and the socket said, kept until authentication decides. */
export interface ConnectInfo {
  /** The client id the device sent (its deviceID); "" when it sent none. */
  readonly claimedId: string;
  /** Seconds, from CONNECT. */
  readonly keepAlive: number;
  readonly clientIp: string;
  /** MQTT protocol level from CONNECT: 3 (3.1), 4 (3.1.1) or 5 (5.0). */
  readonly protocolVersion: number;
  /** Clean Start (5.0) or Clean Session (3.1.1); always set for a CONNECT without a client id. */
  readonly cleanStart: boolean;
  /** MQTT 5.0 Topic Alias Maximum from CONNECT (§3.1.2.11.5): aliases the device accepts; 0 when none (and 3.1.1). */
  readonly topicAliasMaximum: number;
}

/**
 * Where a connection's session stands: authenticated (not yet registered by aedes), open (reported to the registry),
 * ended (the connection is gone). It only moves forward, so a session is reported open at most once and closed
 * exactly once, whatever order aedes' events come in.
 */
type SessionPhase = "authenticated" | "open" | "ended";

/** Per-connection state of an authenticated device. */
export interface ClientState {
  readonly session: DeviceSession;
  readonly connect: ConnectInfo;
  phase: SessionPhase;
  /** Why the connection ended, for the SessionClosed reason; set before closing. */
  closeReason: string | undefined;
  /** Set by a kick: nothing more (not even the will) is accepted from this connection. */
  kicked: boolean;
  /** QoS 1/2 downlinks written and not yet acknowledged (PUBACK, or PUBREC then PUBCOMP), by packet identifier. */
  readonly awaitingAck: Map<number, AwaitedAck>;
  /** True once aedes wrote the connection's CONNACK: nothing else may be written to the device before it. */
  connackSent: boolean;
  /** Called once the CONNACK is written (at once when it already is). */
  afterConnack(write: () => void): void;
  /**
   * Downlinks handed to aedes and not yet seen by authorizeForward, keyed by their payload Buffer: each may set the
   * packet identifier and DUP of its PUBLISH (a resumed command goes with its first identifier again).
   */
  readonly downlinkMarks: Map<Buffer, (packet: { qos: number; messageId?: number; dup?: boolean }) => void>;
  /** Downlinks waiting for the device to subscribe to their topic; each is called after every SUBSCRIBE. */
  readonly subscribeWaiters: Set<() => void>;
  /**
   * Filters a proxy update is unsubscribing: aedes drops them from the client only once its persistence answers, and
   * a downlink sent meanwhile (the registry sends it after the update) must already find them gone.
   */
  readonly leaving: Set<string>;
  /** The connection's subscriptions: mounted filter → granted QoS, from aedes' 'subscribe'/'unsubscribe' events. */
  readonly granted: Map<string, number>;
  /**
   * The session outlives the connection (its expiry interval was above 0 at CONNECT): its subscriptions go to the
   * registry's store after each change (persistent-session.ts).
   */
  persistent: boolean;
  /** A persistent session's subscriptions as stored: relative filter → subscription with its options. */
  readonly stored: Map<string, StoredSubscription>;
  /** The stored subscriptions aedes is restoring at CONNECT (handed to it by the persistence), until registered. */
  restoring: ReadonlySet<object> | undefined;
  /**
   * The packet identifier of the next QoS 1/2 PUBLISH sent to the device (MQTT-2.3.1-2: one not in use). The adapter
   * numbers every such PUBLISH itself in authorizeForward (aedes keeps an identifier a forwarded packet already has),
   * so it knows which PUBACK answers a command.
   */
  nextMessageId(): number;
  /** The topic aliases of the connection's commands; undefined when the device accepts none (topic-aliases.ts). */
  readonly topicAliases: OutboundTopicAliases | undefined;
}

/** A QoS 1/2 downlink written to the device and not yet acknowledged, told what the device answers. */
export interface AwaitedAck {
  /** The device sent PUBACK or PUBCOMP with this packet identifier. */
  acked(cmd: "puback" | "pubcomp"): void;
  /** The device sent PUBREC with this packet identifier (reason code 0 success; ≥ 0x80 refused, MQTT 5.0). */
  received(reasonCode: number): void;
  /** The connection ended before the flow did. */
  dropped(): void;
}

type Mark = (packet: { qos: number; messageId?: number; dup?: boolean }) => void;

/**
 * A connection's ClientState. Its collections are made on first use: most devices never get a downlink, and three
 * empty collections were about half a kilobyte of every held connection.
 */
class SessionState implements ClientState {
  phase: SessionPhase = "authenticated";
  closeReason: string | undefined = undefined;
  kicked = false;
  connackSent = false;
  persistent = false;
  restoring: ReadonlySet<object> | undefined = undefined;
  private storedSubs: Map<string, StoredSubscription> | undefined;
  private acks: Map<number, AwaitedAck> | undefined;
  private connackWaiters: (() => void)[] | undefined;
  private marks: Map<Buffer, Mark> | undefined;
  private waiters: Set<() => void> | undefined;
  private unsubscribing: Set<string> | undefined;
  private subscriptions: Map<string, number> | undefined;
  private lastMessageId = 0;
  private aliases: OutboundTopicAliases | undefined;

  constructor(
    readonly session: DeviceSession,
    readonly connect: ConnectInfo,
  ) {}

  get awaitingAck(): Map<number, AwaitedAck> {
    return (this.acks ??= new Map());
  }

  afterConnack(write: () => void): void {
    if (this.connackSent) write();
    else (this.connackWaiters ??= []).push(write);
  }

  /** aedes wrote the CONNACK: runs what waited for it, in order. */
  connacked(): void {
    this.connackSent = true;
    const waiting = this.connackWaiters ?? [];
    this.connackWaiters = undefined;
    for (const write of waiting) write();
  }

  get downlinkMarks(): Map<Buffer, Mark> {
    return (this.marks ??= new Map());
  }

  get subscribeWaiters(): Set<() => void> {
    return (this.waiters ??= new Set());
  }

  get leaving(): Set<string> {
    return (this.unsubscribing ??= new Set());
  }

  get granted(): Map<string, number> {
    return (this.subscriptions ??= new Map());
  }

  get stored(): Map<string, StoredSubscription> {
    return (this.storedSubs ??= new Map());
  }

  get topicAliases(): OutboundTopicAliases | undefined {
    if (this.connect.topicAliasMaximum <= 0) return undefined;
    return (this.aliases ??= new OutboundTopicAliases(this.connect.topicAliasMaximum));
  }

  nextMessageId(): number {
    do this.lastMessageId = this.lastMessageId >= 65535 ? 1 : this.lastMessageId + 1;
    while (this.acks?.has(this.lastMessageId));
    return this.lastMessageId;
  }
}

/**
 * The device's address without port or IPv4-mapped prefix; "" for in-memory streams. Every transport hands the
 * adapter a stream with the peer's `remoteAddress` (a socket's own; the WebSocket listener copies it onto its stream).
 */
export function clientIpOf(client: Client): string {
  const raw = (client.conn as Partial<Socket>).remoteAddress ?? client.req?.socket.remoteAddress ?? "";
  return raw.startsWith("::ffff:") ? raw.slice(7) : raw;
}

/**
 * Which aedes client belongs to which device. aedes' own table is keyed by
 * client id; downlinks and kicks arrive by device int id, so this indexes the
 * live clients by device and holds each client's state.
 */
export class ClientTable {
  private readonly connects = new WeakMap<Client, ConnectInfo>();
  private readonly states = new WeakMap<Client, ClientState>();
  private readonly byDevice = new Map<number, Set<Client>>();

  /** Remembers the CONNECT details until authentication. */
  noteConnect(client: Client, info: ConnectInfo): void {
    this.connects.set(client, info);
  }

  /** CONNECT details of a client, if it sent CONNECT. */
  connectInfo(client: Client): ConnectInfo | undefined {
    return this.connects.get(client);
  }

  /** Binds an authenticated session to its connection. */
  attach(client: Client, session: DeviceSession, connect: ConnectInfo): ClientState {
    const state = new SessionState(session, connect);
    this.states.set(client, state);
    return state;
  }

  /** The state of an authenticated client; undefined before authentication. */
  state(client: Client | null | undefined): ClientState | undefined {
    return client ? this.states.get(client) : undefined;
  }

  /** Indexes a client that aedes registered (it now counts as connected). */
  register(client: Client, state: ClientState): void {
    const id = state.session.device.deviceIntId;
    const set = this.byDevice.get(id) ?? new Set();
    set.add(client);
    this.byDevice.set(id, set);
  }

  /** Removes a disconnected client from the index. */
  unregister(client: Client, state: ClientState): void {
    const id = state.session.device.deviceIntId;
    const set = this.byDevice.get(id);
    set?.delete(client);
    if (set?.size === 0) this.byDevice.delete(id);
  }

  /** aedes wrote the client's CONNACK (its 'connackSent' event). */
  connacked(client: Client): void {
    const state = this.states.get(client);
    if (state instanceof SessionState) state.connacked();
  }

  /** Live clients of a device, oldest first. */
  ofDevice(deviceIntId: number): Client[] {
    return [...(this.byDevice.get(deviceIntId) ?? [])].filter((c) => !c.closed);
  }

  /** Every live registered client. */
  *live(): IterableIterator<Client> {
    for (const set of this.byDevice.values()) for (const client of set) if (!client.closed) yield client;
  }

  /** Number of connected devices' clients. */
  get size(): number {
    let n = 0;
    for (const set of this.byDevice.values()) n += set.size;
    return n;
  }
}
