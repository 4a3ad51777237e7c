import type { ParsedPacket } from "coap-packet";
import type { Logger } from "pino";
import {
  AdapterError,
  DeviceLeases,
  Lease,
  type DownlinkOutcome,
  type LeaseRefusal,
  type RegistryClient,
} from "@iot/adapter-core";
import { CODES, decode, notification, response } from "./messages.js";

/** Where a datagram came from; answers go back there. */
export interface Peer {
  readonly address: string;
  readonly port: number;
}

/** What the CoAP adapter needs from outside. */
export interface CoapAdapterOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly policyDefault: "allow" | "deny";
  /** Seconds a device counts as online after its last request. */
  readonly keepAliveSeconds: number;
  /** RFC 7252 ACK_TIMEOUT for confirmable notifications, ms (default 2000; doubled per retransmission). */
  readonly ackTimeoutMs?: number;
  /** RFC 7252 MAX_RETRANSMIT (default 4). */
  readonly maxRetransmit?: number;
}

/** A CoAP front for devices: fed datagrams by a UDP socket it does not own. */
export interface CoapAdapter {
  /** Handles one datagram from `peer`; `send` writes a datagram back to it. Never throws. */
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
  /** Ends every observation and device session. */
  close(): void;
  readonly leases: DeviceLeases;
}

/**
 * How long an answered confirmable request is remembered for retransmissions, ms (RFC 7252 EXCHANGE_LIFETIME is 247 s).
 */
const EXCHANGE_MS = 247_000;
/** Most remembered exchanges (oldest go first). */
const MAX_EXCHANGES = 50_000;

/** How each core refusal reads in CoAP. */
function codeOf(r: LeaseRefusal): string {
  if (r.kind === "topic") return CODES.badRequest;
  if (r.kind === "policy") return CODES.forbidden;
  if (r.code === "BAD_CREDENTIALS") return CODES.unauthorized;
  if (r.code === "UNAVAILABLE") return CODES.unavailable;
  return CODES.forbidden;
}

interface Observation {
  readonly lease: Lease;
  sequence: number;
  stop(): void;
}

/**
 * Builds the adapter. `POST`/`PUT coap://host/mqtt/<topic>?c=&u=&p=` publish
 * (a confirmable one is answered 2.04 only after the registry's durable
 * write); `GET` with Observe on `/mqtt/<topic>` (default `inbox`) receives
 * commands as confirmable notifications, DELIVERED when the device ACKs them;
 * a plain `GET` takes one waiting command. Sessions are core device leases:
 * held while observing, else kept for keepAlive after the last request.
 */
export function createCoapAdapter(options: CoapAdapterOptions): CoapAdapter {
  const log = options.logger.child({ component: "coap-adapter" });
  const leases = new DeviceLeases({
    registry: options.registry,
    protocol: "coap",
    logger: log,
    keepAliveSeconds: options.keepAliveSeconds,
    policyDefault: options.policyDefault,
  });
  options.registry.setHandlers(leases.handlers());
  const ackTimeoutMs = options.ackTimeoutMs ?? 2_000;
  const maxRetransmit = options.maxRetransmit ?? 4;

  let nextMessageId = Math.floor(Math.random() * 0xffff);
  const messageId = () => (nextMessageId = (nextMessageId + 1) & 0xffff);
  /** Confirmable requests already seen: their answer (or undefined while it is being made). */
  const exchanges = new Map<string, { at: number; reply: Buffer | undefined }>();
  /** Confirmable notifications waiting for the device's ACK or RST, by message id. */
  const awaiting = new Map<number, (answer: "ack" | "reset") => void>();
  const observations = new Map<string, Observation>();

  const remember = (key: string, reply: Buffer | undefined) => {
    const now = Date.now();
    for (const [k, e] of exchanges) {
      if (now - e.at < EXCHANGE_MS && exchanges.size < MAX_EXCHANGES) break;
      exchanges.delete(k);
    }
    exchanges.set(key, { at: now, reply });
  };

  /** Sends a confirmable message until it is ACKed or RST, retransmitting with exponential back-off. */
  const confirm = (id: number, datagram: Buffer, send: (d: Buffer) => void): Promise<"ack" | "reset" | "timeout"> =>
    new Promise((resolve) => {
      let attempt = 0;
      let timer: NodeJS.Timeout;
      const transmit = () => {
        send(datagram);
        if (attempt > maxRetransmit) {
          awaiting.delete(id);
          return resolve("timeout");
        }
        timer = setTimeout(transmit, ackTimeoutMs * 2 ** attempt++);
        timer.unref();
      };
      awaiting.set(id, (answer) => {
        clearTimeout(timer);
        awaiting.delete(id);
        resolve(answer);
      });
      transmit();
    });

  const observe = (
    key: string,
    lease: Lease,
    packet: ParsedPacket,
    topic: string,
    send: (d: Buffer) => void,
  ): Buffer => {
    observations.get(key)?.stop();
    const release = lease.hold();
    let observation: Observation | undefined;
    let unsubscribe: (() => void) | undefined;
    let probe: NodeJS.Timeout | undefined;
    const stop = () => {
      clearInterval(probe);
      if (observations.get(key) === observation) observations.delete(key);
      unsubscribe?.();
      release();
    };
    const consumed = lease.consume(
      topic,
      async (downlink): Promise<DownlinkOutcome> => {
        await Promise.resolve(); // the registration's own answer goes out first
        const o = observation!;
        const id = messageId();
        const answer = await confirm(
          id,
          notification(packet.token, id, ++o.sequence, CODES.content, downlink.payload),
          send,
        );
        if (answer === "ack") return { status: "DELIVERED" };
        stop(); // RST or no answer: the device no longer observes (RFC 7641 §3.6)
        return {
          status: "FAILED",
          message:
            answer === "reset"
              ? "the device rejected the notification"
              : "the device did not acknowledge the notification",
        };
      },
      (reason) => {
        stop();
        const id = messageId();
        void confirm(
          id,
          notification(
            packet.token,
            id,
            ++observation!.sequence,
            reason.startsWith("kicked") ? CODES.unauthorized : CODES.unavailable,
            Buffer.from(reason),
          ),
          send,
        );
      },
    );
    if (typeof consumed !== "function") {
      release();
      return response(packet, codeOf(consumed), consumed.message, { messageId: messageId() });
    }
    unsubscribe = consumed;
    observation = { lease, sequence: 1, stop };
    observations.set(key, observation);
    // An observer that vanished would keep the device online for ever: every keepAlive, an empty
    // confirmable notification asks whether it is still there (RFC 7641 §4.5); no ACK ends it.
    probe = setInterval(() => {
      const id = messageId();
      void confirm(
        id,
        notification(packet.token, id, ++observation.sequence, CODES.content, new Uint8Array()),
        send,
      ).then((answer) => {
        if (answer !== "ack") stop();
      });
    }, options.keepAliveSeconds * 1000);
    probe.unref();
    return response(packet, CODES.content, "", { observe: 1, messageId: messageId() });
  };

  /** A plain GET: the oldest waiting command on the topic, or an empty 2.05. */
  const fetchOne = (lease: Lease, packet: ParsedPacket, topic: string): Buffer => {
    let reply: Buffer | undefined;
    const consumed = lease.consume(
      topic,
      async (downlink) => {
        reply = response(packet, CODES.content, Buffer.from(downlink.payload), { messageId: messageId() });
        return { status: "DELIVERED" };
      },
      () => undefined,
      true,
    );
    if (typeof consumed !== "function")
      return response(packet, codeOf(consumed), consumed.message, { messageId: messageId() });
    consumed();
    return reply ?? response(packet, CODES.content, "", { messageId: messageId() });
  };

  const serve = async (
    packet: ParsedPacket,
    method: string,
    path: string[],
    query: Map<string, string>,
    observeFlag: number | undefined,
    peer: Peer,
    send: (d: Buffer) => void,
  ): Promise<Buffer> => {
    const answer = (code: string, text = "") => response(packet, code, text, { messageId: messageId() });
    if (path[0] !== "mqtt") return answer(CODES.notFound, "use /mqtt/<topic>");
    const topic = path.slice(1).join("/");
    const key = `${peer.address}:${peer.port}:${packet.token.toString("hex")}`;
    if (method === "GET" && observeFlag === 1) {
      observations.get(key)?.stop();
      return answer(CODES.content);
    }
    if (method !== "GET" && method !== "POST" && method !== "PUT")
      return answer(CODES.methodNotAllowed, "use POST or PUT to publish, GET to receive");
    const username = query.get("u");
    const token = query.get("p");
    if (!username || !token)
      return answer(CODES.unauthorized, "credentials missing: ?c=<deviceID>&u=<deviceUsername>&p=<token>");
    const lease = await leases.acquire(
      { kind: "token", clientId: query.get("c") ?? "", username, token },
      peer.address,
    );
    if (!(lease instanceof Lease))
      return answer(
        codeOf(lease),
        lease.kind === "auth" && lease.code === "BAD_CREDENTIALS" ? "unknown username or wrong token" : lease.message,
      );
    if (method === "GET") {
      const filter = topic || lease.session.device.defaultDownlinkTopic;
      return observeFlag === 0 ? observe(key, lease, packet, filter, send) : fetchOne(lease, packet, filter);
    }
    if (!topic) return answer(CODES.badRequest, "a topic is required: /mqtt/<topic>");
    try {
      const refused = await lease.publish(topic, packet.payload, packet.confirmable ? 1 : 0);
      return refused ? answer(codeOf(refused), refused.message) : answer(CODES.changed);
    } catch (err) {
      if (!(err instanceof AdapterError)) throw err;
      log.warn({ deviceId: lease.session.device.deviceId, topic, err: err.message }, "uplink not stored");
      return answer(err.code === "UPLINK_REJECTED" ? CODES.badRequest : CODES.unavailable, "not stored; try again");
    }
  };

  return {
    leases,
    handle(datagram, peer, send) {
      const m = decode(datagram);
      if (m.kind === "malformed") {
        log.debug({ peer: peer.address, reason: m.reason }, "malformed datagram");
        if (m.reply) send(m.reply);
        return;
      }
      if (m.kind !== "request") {
        awaiting.get(m.messageId)?.(m.kind);
        return;
      }
      const { packet } = m;
      const exchange = `${peer.address}:${peer.port}:${packet.messageId}`;
      if (packet.confirmable) {
        const seen = exchanges.get(exchange);
        if (seen) {
          if (seen.reply) send(seen.reply); // a retransmission: same answer, no second publish
          return;
        }
        remember(exchange, undefined);
      }
      void serve(packet, m.method, m.path, m.query, m.observe, peer, send)
        .catch((err: unknown) => {
          log.error({ err }, "request failed");
          return response(packet, CODES.internal, "", { messageId: messageId() });
        })
        .then((reply) => {
          if (packet.confirmable) remember(exchange, reply);
          send(reply);
        });
    },
    close() {
      for (const o of [...observations.values()]) o.stop();
      leases.closeAll("adapter shutting down");
    },
  };
}
