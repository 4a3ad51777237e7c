import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Aedes, type Client } from "aedes";
import type { Logger } from "pino";
import { DEFAULT_MAX_MESSAGE_SIZE, type RegistryClient } from "@iot/adapter-core";
import { ClientTable, clientIpOf } from "./client-table.js";
import type { AdapterContext, MqttAdapterStats } from "./context.js";
import { deliverDownlink } from "./downlink.js";
import { skipUnmatchedFanOut } from "./fan-out-filter.js";
import { guardInbound } from "./guard-inbound.js";
import { authenticateHook } from "./hooks/authenticate.js";
import { authorizeForwardHook } from "./hooks/authorize-forward.js";
import { PublishDenied, authorizePublishHook } from "./hooks/authorize-publish.js";
import { authorizeSubscribeHook } from "./hooks/authorize-subscribe.js";
import { preConnectHook } from "./hooks/pre-connect.js";
import { subscribeProxies, updateProxies } from "./proxy-subscriptions.js";
import { pubackObservingPersistence } from "./puback-persistence.js";
import { noteSubscribed, noteUnsubscribed, reportSession, takeRestored } from "./persistent-session.js";
import { RECEIVE_MAXIMUM, ReasonCode, TOPIC_ALIAS_MAXIMUM } from "./reason-codes.js";
import { refuseMalformed } from "./refuse-malformed.js";
import { RetainedTable } from "./retained-table.js";
import { rewriteUnsubscribes } from "./rewrite-unsubscribes.js";
import { DelayedWills } from "./will-delay.js";

/** What the MQTT adapter needs from outside. */
export interface MqttAdapterOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  /** IOT_POLICY_DEFAULT: what applies to a topic no device policy matches. */
  readonly policyDefault: "allow" | "deny";
  /** How long a QoS 1 downlink waits for the device's PUBACK, ms (default 30000). */
  readonly downlinkAckTimeoutMs?: number;
  /** Time a new connection has to send CONNECT, ms (default 10000). */
  readonly connectTimeoutMs?: number;
  /** IOT_MAX_MESSAGE_SIZE: largest publish payload accepted, bytes (default 262144). */
  readonly maxMessageSize?: number;
}

/**
 * Room an MQTT packet may take beyond IOT_MAX_MESSAGE_SIZE, bytes: a PUBLISH's topic (at most MAX_TOPIC_BYTES) and
 * message id, or a CONNECT's client id, credentials and will topic around its will message. A packet announcing a
 * longer remaining length is refused from its fixed header; within it, a payload over the limit is refused once
 * the PUBLISH is parsed.
 */
export const PACKET_OVERHEAD_BYTES = 4096;

/** Longest MQTT fixed header: a type byte and a 4-byte remaining length (MQTT 3.1.1 §2.2). */
const MAX_FIXED_HEADER_BYTES = 5;

/** An MQTT 3.1, 3.1.1 and 5.0 broker front for devices, fed connections from any transport. */
export interface MqttAdapter {
  /** Serves one device connection (TCP socket, TLS socket, WebSocket stream, in-memory duplex). */
  handle(stream: Duplex): void;
  /**
   * Largest MQTT packet accepted, fixed header included, bytes: a transport that holds whole frames before handing
   * them on (WebSocket) refuses larger frames from their header with it.
   */
  readonly maxPacketBytes: number;
  /**
   * A transport refused a frame of `stream` as too large (`what`, e.g. "WebSocket frame"): logs it naming the
   * device and records the reason for its session; the transport closes the stream.
   */
  refuseOversized(stream: Duplex, what: string, announcedBytes?: number): void;
  /** Disconnects every device (each reported as a closed session) and stops the broker. */
  close(): Promise<void>;
  readonly stats: MqttAdapterStats;
}

/**
 * Builds the adapter on aedes: devices authenticate through the registry,
 * speak topics relative to their private mountpoint, have their QoS 1
 * publishes acknowledged only after the registry's durable write, and receive
 * registry downlinks; kicks close their connection at once. Async because
 * aedes must finish its own setup before the first connection.
 */
export async function createMqttAdapter(options: MqttAdapterOptions): Promise<MqttAdapter> {
  const clients = new ClientTable();
  const persistence = pubackObservingPersistence(
    (client, cmd, messageId) => ctx.clients.state(client)?.awaitingAck.get(messageId)?.acked(cmd),
    (clientId) => takeRestored(ctx, clientId),
  );
  const ctx: AdapterContext = {
    registry: options.registry,
    log: options.logger.child({ component: "mqtt-adapter" }),
    defaultAllow: options.policyDefault === "allow",
    clients,
    retained: new RetainedTable(persistence),
    stats: { clients: 0, authFailures: 0, uplinks: 0, uplinkFailures: 0, denied: 0, downlinks: 0 },
    downlinkAckTimeoutMs: options.downlinkAckTimeoutMs ?? 30_000,
    maxMessageSize: options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
    unsubscribeRewriters: new WeakMap(),
    restoring: new Map(),
    closing: false,
  };
  const maxRemainingLength = ctx.maxMessageSize + PACKET_OVERHEAD_BYTES;
  const maxPacketBytes = maxRemainingLength + MAX_FIXED_HEADER_BYTES;
  const streams = new WeakMap<Duplex, Client>();
  const refused = new WeakSet<Duplex>();
  const refuse = (stream: Duplex, what: string, announcedBytes?: number) => {
    if (refused.has(stream)) return; // a transport may notice what the gate already refused
    refused.add(stream);
    refuseOversized(ctx, stream, streams.get(stream), what, announcedBytes);
  };
  /** Closes a connection a packet of which was too large: an MQTT 5.0 device is told so (DISCONNECT 0x95). */
  const closeOversized = (stream: Duplex) => {
    const client = streams.get(stream);
    if (client?.version !== 5 || !client.connected) return stream.destroy();
    const reasonString = `packet larger than the maximum packet size (${maxPacketBytes} bytes)`;
    client.disconnect({ reasonCode: ReasonCode.PACKET_TOO_LARGE, properties: { reasonString } });
  };
  const wills = new DelayedWills(ctx);
  const broker = await Aedes.createBroker({
    id: options.registry.instanceId,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    maxClientsIdLength: 256,
    persistence: persistence as NonNullable<Parameters<typeof Aedes.createBroker>[0]>["persistence"],
    // MQTT 5.0 CONNACK properties: what the service accepts (aedes enforces the packet size too).
    maximumPacketSize: maxPacketBytes,
    topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
    receiveMaximum: RECEIVE_MAXIMUM,
    preConnect: wills.preConnect(preConnectHook(ctx)),
    authenticate: authenticateHook(ctx),
    authorizePublish: wills.authorizePublish(authorizePublishHook(ctx)),
    authorizeSubscribe: authorizeSubscribeHook(ctx),
    authorizeForward: authorizeForwardHook(ctx),
  });
  skipUnmatchedFanOut(broker);
  watchBroker(broker, ctx);
  broker.on("client", (client) => wills.connected(client));
  options.registry.setHandlers({
    downlink: (d) => deliverDownlink(ctx, d),
    kick: (deviceIntId, reason) => kick(ctx, deviceIntId, reason),
    // Policies are read from the session on every check; nothing to redo here.
    policyUpdate: (deviceIntId) => ctx.log.info({ deviceIntId }, "device policies updated"),
    subscriptionUpdate: (deviceIntId, now, before) => updateProxies(ctx, deviceIntId, now, before),
    retainedUpdate: (deviceIntId, retained) => ctx.retained.update(deviceIntId, retained),
  });

  return {
    handle(stream: Duplex) {
      // Innermost: nothing after the device's DISCONNECT, a refused PUBLISH or an oversized header reaches the
      // UNSUBSCRIBE rewriter or aedes. A PUBREC comes only after the CONNECT aedes is handed below, so `client` is set
      // by then.
      guardInbound(stream, maxRemainingLength, {
        problem: (problem) => refuseMalformed(ctx, client, problem),
        oversized: (p) => {
          refuse(stream, p.type, p.remainingLength);
          closeOversized(stream);
        },
        pubrec: ({ messageId, reasonCode }) =>
          ctx.clients.state(client)?.awaitingAck.get(messageId)?.received(reasonCode),
      });
      ctx.unsubscribeRewriters.set(stream, rewriteUnsubscribes(stream, maxPacketBytes));
      const client = broker.handle(stream);
      streams.set(stream, client);
      // The socket's own end closes the session even when aedes never reports the client disconnected.
      stream.once("close", () => connectionEnded(ctx, client));
    },
    maxPacketBytes,
    refuseOversized: refuse,
    close: async () => {
      ctx.closing = true;
      wills.flush();
      await tellShutdown(ctx);
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
    get stats() {
      return { ...ctx.stats, clients: clients.size };
    },
  };
}

/**
 * Sends every connected MQTT 5.0 device DISCONNECT 0x8B with a reason string and waits until each connection is
 * closed. aedes' own close would send 0x8B too, without a reason string (its disconnect options are not settable on
 * close); a client closed here is only closed again there, which writes nothing.
 */
async function tellShutdown(ctx: AdapterContext): Promise<void> {
  const properties = { reasonString: "server shutting down" };
  const closing = [...ctx.clients.live()]
    .filter((client) => client.version === 5 && client.connected)
    .map(
      (client) =>
        new Promise<void>((done) =>
          client.disconnect({ reasonCode: ReasonCode.SERVER_SHUTTING_DOWN, properties }, () => done()),
        ),
    );
  await Promise.all(closing);
}

/**
 * A registered connection's session opens, unless the connection already ended: aedes registers a client whose
 * takeover of an older one finished after the new one hung up. Another live connection with the same client id is
 * replaced here too, since aedes' table can lose track of one when same-id connections race (MQTT-3.1.4-2).
 */
function connectionRegistered(ctx: AdapterContext, client: Client): void {
  const state = ctx.clients.state(client);
  if (!state || state.phase !== "authenticated") return;
  if (client.closed) return connectionEnded(ctx, client);
  const { device } = state.session;
  for (const other of ctx.clients.ofDevice(device.deviceIntId)) {
    const otherState = ctx.clients.state(other);
    if (other === client || other.id !== client.id || !otherState) continue;
    otherState.closeReason ??= "replaced by a new connection with the same client id";
    other.disconnect({ reasonCode: ReasonCode.SESSION_TAKEN_OVER });
  }
  state.phase = "open";
  state.restoring = undefined;
  ctx.clients.register(client, state);
  // Before the CONNACK: the device's first SUBSCRIBE finds its retained messages.
  ctx.retained.set(device.deviceIntId, device.mountpoint, state.session.retained ?? []);
  // Proxy subscriptions first: commands queued for the device follow the SessionOpened.
  subscribeProxies(ctx, client, state.session.subscriptions);
  ctx.registry.sessionOpened(state.session, { clientIp: state.connect.clientIp, keepAlive: state.connect.keepAlive });
  ctx.log.info(
    { deviceId: device.deviceId, tenantId: device.tenantId, ip: state.connect.clientIp },
    "device connected",
  );
}

/** A connection ended (aedes' clientDisconnect or the socket's close, whichever comes first): its session closes. */
function connectionEnded(ctx: AdapterContext, client: Client): void {
  const state = ctx.clients.state(client);
  if (!state || state.phase === "ended") return;
  const wasOpen = state.phase === "open";
  state.phase = "ended";
  for (const ack of [...state.awaitingAck.values()]) ack.dropped();
  for (const wake of [...state.subscribeWaiters]) wake();
  if (state.restoring) ctx.restoring.delete(client.id);
  if (!wasOpen) return;
  ctx.clients.unregister(client, state);
  if (ctx.clients.ofDevice(state.session.device.deviceIntId).length === 0)
    ctx.retained.drop(state.session.device.deviceIntId);
  reportSession(ctx, client, state, true);
  const reason = state.closeReason ?? (ctx.closing ? "adapter shutting down" : "client disconnected");
  ctx.registry.sessionClosed(state.session, reason);
  ctx.log.info(
    { deviceId: state.session.device.deviceId, tenantId: state.session.device.tenantId, reason },
    "device disconnected",
  );
}

/** Session bookkeeping from aedes' client lifecycle events. */
function watchBroker(broker: Aedes, ctx: AdapterContext): void {
  broker.on("client", (client) => connectionRegistered(ctx, client));
  broker.on("connackSent", (_packet, client) => ctx.clients.connacked(client));
  // The connection's subscriptions as granted (mounted filters): SUBACK codes of 0x80 and above are refusals.
  broker.on("subscribe", (subs, client) => {
    const state = ctx.clients.state(client);
    if (!state) return;
    for (const sub of subs) if (sub.qos < 0x80) state.granted.set(sub.topic, sub.qos);
    for (const wake of state.subscribeWaiters) wake();
    noteSubscribed(ctx, client, state, subs);
  });
  broker.on("unsubscribe", (filters, client) => {
    const state = ctx.clients.state(client);
    if (!state) return;
    for (const filter of filters) state.granted.delete(filter);
    noteUnsubscribed(ctx, client, state, filters);
  });
  broker.on("clientDisconnect", (client) => connectionEnded(ctx, client));
  broker.on("clientError", (client, err) => {
    if (err instanceof PublishDenied) return; // answered PUBACK 0x87; the connection stays
    const state = ctx.clients.state(client);
    if (state && !state.closeReason) state.closeReason = `connection error: ${err.message}`;
    ctx.log.debug({ clientId: client.id, err: err.message }, "client error");
  });
  broker.on("keepaliveTimeout", (client) => {
    const state = ctx.clients.state(client);
    if (state) state.closeReason = "keepalive timeout";
    const keepAlive = state ? ` of ${state.connect.keepAlive} s` : "";
    // aedes destroys the connection right after this event; an MQTT 5.0 device is told why first. The packet is
    // written corked (mqtt-packet uncorks on the next tick), so it is flushed here, before the destroy.
    client.disconnect({
      reasonCode: ReasonCode.KEEP_ALIVE_TIMEOUT,
      properties: { reasonString: `no packet within one and a half times the keep alive${keepAlive}` },
    });
    client.conn.uncork();
  });
  broker.on("connectionError", (_client, err) =>
    ctx.log.debug({ err: err.message }, "connection closed before CONNECT completed"),
  );
  (broker as unknown as NodeJS.EventEmitter).on("error", (err: Error) => ctx.log.error({ err }, "broker error"));
}

/**
 * A packet (or transport frame) of the connection was announced larger than IOT_MAX_MESSAGE_SIZE allows: one warning
 * naming the device (its deviceID once authenticated, else the client id it claimed, and its address), and the
 * reason its session closes with. The caller closes the stream.
 */
function refuseOversized(
  ctx: AdapterContext,
  stream: Duplex,
  client: Client | undefined,
  what: string,
  announcedBytes: number | undefined,
): void {
  const state = client && ctx.clients.state(client);
  const device = state?.session.device;
  const claimedId = client && ctx.clients.connectInfo(client)?.claimedId;
  const ip = client ? clientIpOf(client) : ((stream as Partial<Socket>).remoteAddress ?? "");
  const size = announcedBytes === undefined ? "" : ` of ${announcedBytes} bytes`;
  const reason = `${what}${size} larger than IOT_MAX_MESSAGE_SIZE allows (${ctx.maxMessageSize} bytes)`;
  if (state) state.closeReason = `message too large: ${reason}`;
  ctx.stats.denied++;
  ctx.log.warn(
    {
      ...(device ? { deviceId: device.deviceId, tenantId: device.tenantId } : {}),
      ...(claimedId ? { clientId: claimedId } : {}),
      ip,
      packet: what,
      ...(announcedBytes === undefined ? {} : { announcedBytes }),
      limitBytes: ctx.maxMessageSize,
    },
    "message too large; closing connection",
  );
}

/** Registry kick: close every connection of the device at once, accepting nothing more from it. */
function kick(ctx: AdapterContext, deviceIntId: number, reason: string): void {
  for (const client of ctx.clients.ofDevice(deviceIntId)) {
    const state = ctx.clients.state(client);
    if (state) {
      state.kicked = true;
      state.closeReason = `kicked: ${reason}`;
    }
    ctx.log.info({ deviceIntId, reason }, "kicking device");
    client.disconnect({ reasonCode: ReasonCode.ADMINISTRATIVE_ACTION, properties: { reasonString: reason } });
  }
}
