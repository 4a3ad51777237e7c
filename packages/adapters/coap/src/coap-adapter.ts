import type { X509Certificate } from "node:crypto";
import type { Logger } from "pino";
import {
  AdapterError,
  DeviceLeases,
  Lease,
  retryAfterSeconds,
  type DeviceCredentials,
  type DownlinkOutcome,
  type LeaseRefusal,
  type RegistryClient,
  type UplinkResend,
} from "@iot/adapter-core";
import { createMessageLayer, EXCHANGE_MS, type CoapReply, type CoapRequest, type Peer } from "./message-layer.js";
import { CODES } from "./messages.js";
import { SecurePeers, type SecureTarget } from "./secure-peers.js";

export type { Peer } from "./message-layer.js";

/**
 * A confirmable request's resend identity: its Message ID and token, which a retransmission repeats (RFC 7252 §4.5).
 * This process's duplicate cache catches retransmissions of what it received itself; one of a request sent to an
 * earlier process (which died before its ACK reached the device) can come while the device is new to this process,
 * so until this process has known the device for EXCHANGE_LIFETIME the registry is asked to look for a first copy.
 */
function resendOf(request: CoapRequest, lease: Lease): UplinkResend | undefined {
  if (!request.confirmable || request.messageId === undefined) return undefined;
  return {
    id: `coap:${request.messageId}:${request.token.toString("hex")}`,
    maybe: Date.now() - lease.openedAt < EXCHANGE_MS,
  };
}

/** What the CoAP adapter needs from outside. */
export interface CoapAdapterOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly policyDefault: "allow" | "deny";
  /** Seconds a device counts as online after its last request. */
  readonly keepAliveSeconds: number;
  /** IOT_MAX_MESSAGE_SIZE: largest uplink body, bytes, sent whole or block-wise; larger ones are answered 4.13. */
  readonly maxMessageSize: number;
  /** RFC 7252 ACK_TIMEOUT for confirmable notifications, ms (default 2000; doubled per retransmission). */
  readonly ackTimeoutMs?: number;
  /** RFC 7252 MAX_RETRANSMIT (default 4). */
  readonly maxRetransmit?: number;
  /** Most block-wise uploads reassembled at once (default 64). */
  readonly maxTransfers?: number;
  /** A block-wise transfer idle this long is dropped, ms (default 60 000). */
  readonly transferTimeoutMs?: number;
  /** Largest block exponent (default 6: 1024-byte blocks). */
  readonly maxSzx?: number;
  /** The service CA device certificates chain to (IOT_COAPSS_PORT): without it certificate handshakes fail. */
  readonly ca?: X509Certificate;
}

/** A CoAP front for devices: fed datagrams by a UDP socket it does not own. */
export interface CoapAdapter {
  /** Handles one datagram from `peer`; `send` writes a datagram back to it. Never throws. */
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
  /** The DTLS listener's side: PSK lookups, sessions and their decrypted datagrams (see transport/dtls.ts). */
  readonly secure: SecureTarget;
  /** Ends every observation and device session. */
  close(): void;
  readonly leases: DeviceLeases;
}

/**
 * A reply of a code and a diagnostic text; for a passing refusal (a 5.03 or 4.29), the seconds after which to try
 * again as Max-Age (see `retryAfterSeconds`: without it the device would wait 60 s).
 */
const answer = (code: string, payload = "", retryAfter?: number): CoapReply =>
  retryAfter === undefined ? { code, payload } : { code, payload, maxAge: retryAfter };

/** A stored publish's answer (one object for all: the layer only reads it). */
const CHANGED: CoapReply = { code: CODES.changed };

/** How each core refusal reads in CoAP, with its message (or `payload`) as the diagnostic. */
function refusalReply(r: LeaseRefusal, payload = r.message): CoapReply {
  if (r.kind === "topic") return answer(CODES.badRequest, payload);
  if (r.kind === "policy") return answer(CODES.forbidden, payload);
  if (r.code === "BAD_CREDENTIALS") return answer(CODES.unauthorized, payload);
  if (r.code === "UNAVAILABLE" || r.code === "QUOTA_EXCEEDED")
    return answer(CODES.unavailable, payload, retryAfterSeconds(r.code));
  return answer(CODES.forbidden, payload);
}

interface Observation {
  readonly lease: Lease;
  sequence: number;
  readonly stop: () => void;
}

/**
 * Builds the adapter, a handler on the CoAP message layer (which reassembles block-wise uploads and serves large
 * answers block-wise). `POST`/`PUT coap://host/mqtt/<topic>?c=&u=&p=` publish (a confirmable one is answered 2.04
 * only after the registry's durable write); `GET` with Observe on `/mqtt/<topic>` (default `inbox`) receives
 * commands as confirmable notifications, DELIVERED when the device ACKs them; a plain `GET` takes one waiting
 * command. Sessions are core device leases, one per device whether a request sends `c=` or not: held while observing,
 * else kept for keepAlive after the last request.
 */
export function createCoapAdapter(options: CoapAdapterOptions): CoapAdapter {
  const log = options.logger.child({ component: "coap-adapter" });
  const leases = new DeviceLeases({
    registry: options.registry,
    protocol: "coap",
    logger: log,
    keepAliveSeconds: options.keepAliveSeconds,
    policyDefault: options.policyDefault,
    // `c=` is optional: requests with and without it are one device, one session.
    onePerDevice: true,
  });
  options.registry.setHandlers(leases.handlers());
  const observations = new Map<string, Observation>();

  const observe = (key: string, lease: Lease, request: CoapRequest, topic: string): CoapReply => {
    observations.get(key)?.stop();
    const release = lease.hold();
    let unsubscribe: (() => void) | undefined;
    let probe: NodeJS.Timeout | undefined;
    const observation: Observation = {
      lease,
      sequence: 1,
      stop: () => {
        clearInterval(probe);
        if (observations.get(key) === observation) observations.delete(key);
        unsubscribe?.();
        release();
      },
    };
    const { stop } = observation;
    const consumed = lease.consume(
      topic,
      async (downlink): Promise<DownlinkOutcome> => {
        const answer = await request.notify(++observation.sequence, CODES.content, downlink.payload);
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
        const code = reason.startsWith("kicked") ? CODES.unauthorized : CODES.unavailable;
        void request.notify(++observation.sequence, code, Buffer.from(reason));
      },
    );
    if (typeof consumed !== "function") {
      release();
      return refusalReply(consumed);
    }
    unsubscribe = consumed;
    observations.set(key, observation);
    // An observer that vanished would keep the device online for ever: every keepAlive, an empty
    // confirmable notification asks whether it is still there (RFC 7641 §4.5); no ACK ends it.
    probe = setInterval(() => {
      void request.notify(++observation.sequence, CODES.content, new Uint8Array()).then((answer) => {
        if (answer !== "ack") stop();
      });
    }, options.keepAliveSeconds * 1000);
    probe.unref();
    return { code: CODES.content, observe: 1 };
  };

  /** A plain GET: the oldest waiting command on the topic, or an empty 2.05. */
  const fetchOne = (lease: Lease, topic: string): CoapReply => {
    let reply: CoapReply | undefined;
    const consumed = lease.consume(
      topic,
      async (downlink) => {
        reply = { code: CODES.content, payload: downlink.payload };
        return { status: "DELIVERED" };
      },
      () => undefined,
      true,
    );
    if (typeof consumed !== "function") return refusalReply(consumed);
    consumed();
    return reply ?? { code: CODES.content };
  };

  /**
   * An observation's key: its listener (plain or DTLS: a peer may talk to both), observer and token. A plain observer
   * is its address; a DTLS one its session (the transport's peer object, one per session), whose address moves with
   * its Connection ID (RFC 9146): a deregistration or a new registration from the new address finds the observation.
   */
  const sessionIds = new WeakMap<Peer, number>();
  let sessions = 0;
  const observationKey = ({ peer, token }: CoapRequest, scope: string) => {
    if (scope === "") return `${peer.address}:${peer.port}:${token.toString("hex")}`;
    let id = sessionIds.get(peer);
    if (id === undefined) sessionIds.set(peer, (id = ++sessions));
    return `${scope}#${id}:${token.toString("hex")}`;
  };

  /** Plain CoAP: the credentials are the query's `?c=&u=&p=`. */
  const queryCredentials = ({ query }: CoapRequest): DeviceCredentials | CoapReply => {
    const username = query.get("u");
    const token = query.get("p");
    if (!username || !token)
      return answer(CODES.unauthorized, "credentials missing: ?c=<deviceID>&u=<deviceUsername>&p=<token>");
    return { kind: "token", clientId: query.get("c") ?? "", username, token };
  };

  const secure = new SecurePeers(leases, options.registry, log, options.ca ? { ca: options.ca } : {});

  /** CoAP over DTLS: the session's handshake authenticated the device. */
  const sessionCredentials = ({ peer }: CoapRequest): DeviceCredentials | CoapReply =>
    secure.credentialsOf(peer) ?? answer(CODES.unauthorized, "no DTLS session");

  const serve = async (
    request: CoapRequest,
    credentialsOf: (request: CoapRequest) => DeviceCredentials | CoapReply,
    scope: string,
  ): Promise<CoapReply> => {
    const { method, path, peer } = request;
    if (path[0] !== "mqtt") return answer(CODES.notFound, "use /mqtt/<topic>");
    const topic = path.slice(1).join("/");
    if (method === "GET" && request.observe === 1) {
      observations.get(observationKey(request, scope))?.stop();
      return answer(CODES.content);
    }
    if (method !== "GET" && method !== "POST" && method !== "PUT")
      return answer(CODES.methodNotAllowed, "use POST or PUT to publish, GET to receive");
    const credentials = credentialsOf(request);
    if ("code" in credentials) return credentials;
    const lease = leases.openLease(credentials) ?? (await leases.acquire(credentials, peer.address));
    if (!(lease instanceof Lease))
      return refusalReply(
        lease,
        lease.kind === "auth" && lease.code === "BAD_CREDENTIALS" ? "unknown username or wrong token" : lease.message,
      );
    if (credentials.kind === "psk" || credentials.kind === "certificate") secure.watch(peer, lease);
    if (method === "GET") {
      const filter = topic || lease.session.device.defaultDownlinkTopic;
      return request.observe === 0
        ? observe(observationKey(request, scope), lease, request, filter)
        : fetchOne(lease, filter);
    }
    if (!topic) return answer(CODES.badRequest, "a topic is required: /mqtt/<topic>");
    const qos = request.confirmable ? 1 : 0;
    return new Promise<CoapReply>((resolve, reject) => {
      const refused = lease.publishThen(topic, request.payload, qos, resendOf(request, lease), (err) => {
        if (err === undefined) return resolve(CHANGED);
        try {
          if (err instanceof AdapterError) resolve(notStored(err, lease, topic));
          else reject(err);
        } catch (thrown) {
          reject(thrown);
        }
      });
      if (refused) resolve(refusalReply(refused));
    });
  };

  /** The answer to a publish the registry refused or could not store. */
  const notStored = (err: AdapterError, lease: Lease, topic: string): CoapReply => {
    // Over the tenant's uplink rate: 4.29 (RFC 8516), logged by the registry client once per tenant every 10 s.
    if (err.code === "RATE_LIMITED")
      return answer(CODES.tooManyRequests, "tenant over its uplink rate", retryAfterSeconds(err.code));
    log.warn({ deviceId: lease.session.device.deviceId, topic, err: err.message }, "uplink not stored");
    if (err.code === "UPLINK_REJECTED") return answer(CODES.badRequest, "not stored; try again");
    return answer(CODES.unavailable, "not stored; try again", retryAfterSeconds(err.code));
  };

  const layerOptions = {
    logger: log,
    maxBodyBytes: options.maxMessageSize,
    ...(options.ackTimeoutMs !== undefined && { ackTimeoutMs: options.ackTimeoutMs }),
    ...(options.maxRetransmit !== undefined && { maxRetransmit: options.maxRetransmit }),
    ...(options.maxTransfers !== undefined && { maxTransfers: options.maxTransfers }),
    ...(options.transferTimeoutMs !== undefined && { transferTimeoutMs: options.transferTimeoutMs }),
    ...(options.maxSzx !== undefined && { maxSzx: options.maxSzx }),
  };
  const layer = createMessageLayer((request) => serve(request, queryCredentials, ""), {
    ...layerOptions,
    // The device a refused request claims to come from (its credentials are not checked before the body is whole).
    describe: ({ query }) => ({ deviceId: query.get("c"), deviceUsername: query.get("u") }),
  });
  // A message layer of its own: Message IDs, duplicates and block-wise transfers are per listener.
  const secureLayer = createMessageLayer((request) => serve(request, sessionCredentials, "dtls:"), {
    ...layerOptions,
    describe: ({ peer }) => ({ deviceUsername: secure.identityOf(peer) }),
  });

  return {
    leases,
    handle: (datagram, peer, send) => layer.handle(datagram, peer, send),
    secure: {
      lookupPsk: (identity, from) => secure.lookupPsk(identity, from),
      checkCertificate: (chain, from) => secure.checkCertificate(chain, from),
      established: (peer, identity, end, client) => secure.established(peer, identity, end, client),
      failed: (peer, reason, alert) => secure.failed(peer, reason, alert),
      handle: (datagram, peer, send) => secureLayer.handle(datagram, peer, send),
      closed: (peer) => secure.closed(peer),
      moved: (peer, from) => secure.moved(peer, from),
    },
    close() {
      layer.close();
      secureLayer.close();
      for (const o of [...observations.values()]) o.stop();
      leases.closeAll("adapter shutting down");
    },
  };
}
