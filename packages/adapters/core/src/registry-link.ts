/**
 * The registry client's link to the central nodes: the Connect stream in use, opened again after it fails (the next
 * node at once, then backoff with jitter per round of nodes, see RegistryEndpoints), a node that sends no HelloAck in
 * time left for the next, and what is logged of outages. It knows nothing of the messages: the client sends Hello
 * and the replay when `opened` says a stream is new, and reports its HelloAck with `up`.
 */
import type { grpc, RegistryMessage } from "@iot/proto";
import type { Logger } from "pino";
import type { AdapterMetrics } from "./adapter-metrics.js";
import type { BackoffOptions } from "@iot/config";
import { RegistryEndpoints } from "./registry-endpoints.js";
import { registryGrpcClients, type ConnectCall, type RawRegistryClient } from "./registry-grpc-calls.js";
import type { RegistryLinkState } from "./registry-client.js";
import { RegistryOutage } from "./registry-outage.js";

/** How the link connects and whom it tells; times in ms. */
export interface RegistryLinkOptions {
  readonly addresses: readonly string[];
  /** Reconnect delays (`maxMs` set). */
  readonly backoff: BackoffOptions & { readonly maxMs: number };
  /** With several addresses: how long a new stream may wait for its HelloAck before the next node is tried. */
  readonly helloTimeoutMs: number;
  /** IOT_REGISTRY_TOKEN: sent with every call when set. */
  readonly token?: string | undefined;
  readonly log: Logger;
  readonly metrics: AdapterMetrics;
  /** Unacknowledged uplinks, logged with an outage. */
  readonly pendingUplinks: () => number;
  /** A new stream is open: Hello goes first on it. */
  readonly opened: () => void;
  readonly message: (m: RegistryMessage) => void;
  /** The stream went down (a new one follows after the backoff unless the link is closed). */
  readonly lost: (why: string) => void;
}

/** The Connect stream across reconnects and nodes. */
export class RegistryLink {
  private linkState: RegistryLinkState = "idle";
  /** The stream in use; undefined between streams and once closed. */
  call: ConnectCall | undefined;
  /** One gRPC client per node address, in the order of `endpoints.addresses`. */
  private readonly raws: RawRegistryClient[];
  private readonly endpoints: RegistryEndpoints;
  /** What is logged of outages of the link: their start, a summary every 30 s, their end. */
  private readonly outage: RegistryOutage;
  private retryTimer: NodeJS.Timeout | undefined;
  private helloTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: RegistryLinkOptions) {
    this.endpoints = new RegistryEndpoints(opts.addresses, opts.backoff);
    // A link that stayed up is the success that resets the backoff: one that drops right after Hello is not.
    this.outage = new RegistryOutage(opts.log, { onStable: () => this.endpoints.connected() });
    this.raws = registryGrpcClients(this.endpoints.addresses, {
      initialBackoffMs: opts.backoff.initialMs ?? 100,
      maxBackoffMs: opts.backoff.maxMs,
      token: opts.token,
    });
  }

  get state(): RegistryLinkState {
    return this.linkState;
  }

  /** The gRPC client of the node in use: unary calls go where the stream goes. */
  get raw(): RawRegistryClient {
    return this.raws[this.endpoints.currentIndex]!;
  }

  /** The node address in use now (`host:port` as configured). */
  get address(): string {
    return this.endpoints.current;
  }

  /** Opens the first stream (once). */
  start(): void {
    if (this.linkState === "idle") this.open();
  }

  /** The stream's registry answered Hello: the link is up. */
  up(nodeId: string, details: { sessions: number; replayed: number }): void {
    clearTimeout(this.helloTimer);
    this.linkState = "connected";
    this.opts.metrics.registryConnected(true);
    this.outage.up({ node: nodeId, address: this.endpoints.current, ...details });
  }

  /** No more reconnects: the state is `closed` from now on (the stream stays until `end`). */
  stop(): void {
    this.linkState = "closed";
    this.outage.close();
    clearTimeout(this.retryTimer);
    clearTimeout(this.helloTimer);
  }

  /** Ends the stream (waiting up to 1 s for its status) and closes the gRPC clients; `call` is undefined at once. */
  async end(): Promise<void> {
    const call = this.call;
    this.call = undefined;
    if (call) {
      const ended = new Promise<void>((r) => call.once("status", () => r()));
      call.end();
      await Promise.race([ended, new Promise((r) => setTimeout(r, 1000))]);
      call.cancel();
    }
    this.opts.metrics.registryConnected(false);
    for (const raw of this.raws) raw.close();
  }

  private open(): void {
    this.linkState = "connecting";
    this.opts.metrics.registryReconnect();
    const call = this.raw.connect();
    this.call = call;
    let over = false;
    const down = (why: string) => {
      if (over) return;
      over = true;
      clearTimeout(this.helloTimer);
      if (this.call === call) this.call = undefined;
      this.opts.lost(why);
      this.retry(why);
    };
    call.on("data", (m: RegistryMessage) => this.opts.message(m));
    call.on("error", (err: grpc.ServiceError) => down(err.details || err.message));
    call.on("end", () => {
      call.end();
      down("registry ended the stream");
    });
    call.on("status", (s: grpc.StatusObject) => down(`stream closed (${s.code}) ${s.details}`));
    if (this.endpoints.addresses.length > 1) {
      clearTimeout(this.helloTimer);
      this.helloTimer = setTimeout(() => {
        if (this.call !== call || this.linkState !== "connecting") return;
        down(`no HelloAck within ${this.opts.helloTimeoutMs} ms`);
        call.cancel();
      }, this.opts.helloTimeoutMs);
    }
    this.opts.opened();
  }

  private retry(why: string): void {
    if (this.linkState === "closed") return;
    this.linkState = "connecting";
    this.opts.metrics.registryConnected(false);
    const from = this.endpoints.current;
    const delay = this.endpoints.failed();
    this.outage.failed({
      reason: why,
      node: from,
      next: this.endpoints.current,
      retryInMs: delay,
      pendingUplinks: this.opts.pendingUplinks(),
    });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.linkState !== "closed") this.open();
    }, delay);
  }
}
