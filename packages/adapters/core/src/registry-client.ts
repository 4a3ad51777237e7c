/**
 * What a protocol adapter needs from the central registry, in plain TS types
 * (numbers, not bigints). The gRPC implementation and the in-process fake both
 * satisfy it, so adapters are tested without a network.
 */
import type { SessionSubscription } from "@iot/proto";
import type {
  LoraActivateResult,
  LoraCounterReport,
  LoraDeviceInfo,
  LoraMulticastDownlink,
  LoraSessionInfo,
} from "./lora-types.js";

/** Device protocols; each maps to the registry's Protocol enum at the gRPC edge. */
export type ProtocolName = "mqtt" | "coap" | "lwm2m" | "lora" | "http" | "websocket" | "modbus";

/** The one kind of credential a device presents (mirrors the proto's Credentials oneof). */
export type DeviceCredentials =
  | { kind: "token"; clientId: string; username: string; token: string }
  | { kind: "certificate"; clientId: string; commonName: string; fingerprint: string }
  /** `bootstrap`: a Bootstrap-Request; the answer carries the PSK keys when the device's settings ask for PSK. */
  | { kind: "lwm2m"; endpoint: string; bootstrap?: boolean }
  /**
   * LoRaWAN: a device by DevEUI (a JoinRequest) or DevAddr (a data frame), or a LoRa gateway (gatewayProtocol 4)
   * by its EUI, 16 hex digits, as the packet forwarder names itself.
   */
  | { kind: "lora"; devEui: string; devAddr: string; gatewayEui?: string }
  | {
      kind: "modbus";
      /** The gateway polling the slave: its deviceID and token credentials. */
      gatewayDeviceId: string;
      gatewayUsername: string;
      gatewayToken: string;
      /** The slave's unit id: the device's modBusIndex under that gateway. */
      index: number;
    }
  /** CoAP over DTLS: the PSK identity of the handshake (a deviceUsername); the handshake checks the key. */
  | { kind: "psk"; identity: string };

/** Policy access, Form 1 codes: 1 publish, 2 subscribe, 3 both. */
export type PolicyAccess = 1 | 2 | 3;

/** One publish/subscribe rule; `topic` is an MQTT filter relative to the device's mountpoint. */
export interface TopicPolicy {
  readonly id: number;
  readonly topic: string;
  readonly access: PolicyAccess;
  readonly allow: boolean;
}

/** Who an authenticated device is, as the registry knows it. */
export interface DeviceIdentity {
  readonly tenantId: string;
  /** Registry-wide unique numeric id; deviceId alone is unique only within a tenant. */
  readonly deviceIntId: number;
  readonly deviceId: string;
  readonly deviceName: string;
  readonly productIntId: number;
  readonly productId: string;
  /** The device's private topic namespace, ending in "/". */
  readonly mountpoint: string;
  /** Topic used for downlinks that name none (e.g. "inbox"). */
  readonly defaultDownlinkTopic: string;
  readonly deviceType: number;
  readonly isGateway: boolean;
  /** autoSub 1: an LwM2M server observes every object instance the device registers. */
  readonly autoSub: boolean;
}

/** A topic filter the adapter subscribes the device to on its behalf (relative to the mountpoint). */
export interface ProxySubscription {
  readonly topic: string;
  readonly qos: number;
}

/** MQTT: what a CONNECT asks of its session (docs/devices/mqtt.md "Persistent sessions"). */
export interface MqttSessionAsk {
  /** Clean Start (5.0) or Clean Session (3.1.1): no stored session is resumed, and the stored one is dropped. */
  readonly cleanStart: boolean;
  /** Seconds the session outlives its connection: 0 ends it with the connection, 0xFFFFFFFF never expires. */
  readonly expiryInterval: number;
}

/** One subscription of a persistent MQTT session: a filter relative to the mountpoint, its QoS and 5.0 options. */
export type StoredSubscription = SessionSubscription;

/** The MQTT session a connection resumes, as the registry's store held it. */
export interface MqttSessionState {
  readonly present: boolean;
  readonly subscriptions: readonly StoredSubscription[];
}

/** A persistent MQTT session's state for the registry's store: its subscriptions now, or its end. */
export interface MqttSessionReport {
  /** The client id the device connected with. */
  readonly clientId: string;
  readonly subscriptions: readonly StoredSubscription[];
  /** Seconds, as in force now (an MQTT 5.0 DISCONNECT may change it). */
  readonly expiryInterval: number;
  /** The connection ended: the session's expiry starts. */
  readonly ended: boolean;
}

/**
 * An MQTT QoS 1/2 command that went out unacknowledged in a persistent session: its packet identifier, and (QoS 2)
 * whether the device answered PUBREC. The device's next session gets it again with that identifier (MQTT-4.4.0-1).
 */
export interface ResumedFlow {
  readonly packetId: number;
  readonly released: boolean;
}

/**
 * One authenticated device connection; `policies` and `subscriptions` are
 * replaced in place when the registry pushes an update.
 */
export interface DeviceSession {
  readonly sessionId: string;
  /**
   * The registry's digest of the credentials the session was admitted with, echoed when the session is reported
   * open or re-announced, so the registry can revoke it if they changed while the link was down.
   */
  readonly credentialStamp?: string;
  readonly device: DeviceIdentity;
  /** LoRa devices: keys, settings and session for the network server. */
  readonly lora?: LoraDeviceInfo;
  policies: readonly TopicPolicy[];
  subscriptions: readonly ProxySubscription[];
  /**
   * The tenant's uplink rate limit when the session was admitted, messages per second per adapter process (0 or
   * unset: unlimited). The client enforces it on publish; later changes arrive as registry pushes.
   */
  readonly tenantUplinkRate?: number;
  /**
   * The device's retained messages when the session was admitted, one per topic (see `RetainedMessage`); later
   * changes arrive through `RegistryHandlers.retainedUpdate`. Absent or empty when it has none.
   */
  readonly retained?: readonly RetainedMessage[];
  /** MQTT, when the authentication asked for a session: the one resumed from the registry's store. */
  readonly mqttSession?: MqttSessionState;
  /** PSK credentials: the device's token as candidate DTLS keys (secret: never logged). */
  readonly pskKeys?: readonly Buffer[];
  /** LwM2M devices with bootstrap settings in their record (docs/devices/lwm2m.md, Bootstrap). */
  readonly lwm2mBootstrap?: Lwm2mBootstrapSettings;
}

/** An LwM2M device's bootstrap settings as its record holds them; empty or 0 members take the deployment's defaults. */
export interface Lwm2mBootstrapSettings {
  /** `nosec`, `psk`, `certificate`, or empty (follow the port the client bootstraps on). */
  readonly securityMode: string;
  readonly serverUri: string;
  /** Seconds. */
  readonly lifetime: number;
  readonly binding: string;
}

/**
 * A retained message of a device (DESIGN §4): its retained command, its desired state on the topic, or its own
 * retained uplink, the topic's last reported value. An MQTT adapter sends it with RETAIN=1 at each SUBSCRIBE whose
 * filter matches the topic (MQTT 3.1.1 §3.3.1.3, MQTT 5.0 §3.3.1.3).
 */
export interface RetainedMessage {
  /** Relative to the device's mountpoint. */
  readonly topic: string;
  readonly payload: Uint8Array;
  readonly qos: number;
  /** MQTT 5.0 PUBLISH properties, a JSON object text as `Downlink.properties`; absent when none. */
  readonly properties?: string;
}

/**
 * Why authentication failed; UNAVAILABLE means the registry could not be asked, QUOTA_EXCEEDED that the tenant holds
 * its maximum of connections (answer the protocol's "server unavailable": the device may retry later).
 */
export type AuthFailureCode = "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED" | "UNAVAILABLE" | "QUOTA_EXCEEDED";

/**
 * The answer to an authentication attempt. `message` is for logs only, never for the device. `busy`: UNAVAILABLE
 * because this adapter's admission control turned the device away without asking (IOT_ADAPTER_AUTH_QUEUE_LIMIT devices
 * already waiting), which a protocol with a "server busy" answer (MQTT 5.0 CONNACK 0x89) tells apart.
 */
export type AuthOutcome =
  { ok: true; session: DeviceSession } | { ok: false; code: AuthFailureCode; message: string; busy?: boolean };

/** Connection details reported when a session opens. */
export interface SessionInfo {
  /** Address without port; "" when unknown. */
  readonly clientIp: string;
  /** Seconds; 0 when the protocol has none. */
  readonly keepAlive: number;
  /** The device sleeps between check-ins (LwM2M queue mode): deviceStatus 2; see `sessionState`. */
  readonly sleeping?: boolean;
}

/** A device message on its way to the registry; the client assigns the sequence number. */
export interface Uplink {
  readonly sessionId: string;
  readonly tenantId: string;
  readonly deviceIntId: number;
  /** Relative to the device's mountpoint. */
  readonly topic: string;
  readonly payload: Uint8Array;
  readonly qos: number;
  readonly clientIp: string;
  readonly receivedAtMs: number;
  /** Set when a gateway relayed the message for a child device. */
  readonly gatewayDeviceIntId?: number;
  /**
   * How the message reached the service, as a JSON object text kept with the event (LoRaWAN: the gateways that
   * heard the frame, RSSI, SNR, frequency, data rate, FCnt; MQTT 5.0: the PUBLISH's user properties, content type,
   * payload format indicator, response topic and correlation data). Absent for protocols with nothing to add.
   */
  readonly metadata?: string;
  /** The protocol's identity of the message, for recognising a device's resend of it (see `UplinkResend`). */
  readonly resend?: UplinkResend;
  /** MQTT RETAIN=1: the registry keeps it as the topic's last reported value (an empty payload clears that). */
  readonly retain?: boolean;
}

/**
 * What lets the registry recognise a device's resend of a message it already stored when the resend reaches another
 * adapter process (the one that took the first copy died before the device got its ack).
 */
export interface UplinkResend {
  /**
   * The device's own identity of the message, which a resend repeats: "mqtt:<packet id>", "coap:<message id>:<token
   * hex>", "http:<Idempotency-Key>". Stored with the uplink.
   */
  readonly id: string;
  /**
   * The message may be a resend (MQTT DUP=1, CoAP from a device this process met less than EXCHANGE_LIFETIME ago, an
   * HTTP Idempotency-Key): the registry then looks for a recent copy, so keep it false for ordinary messages.
   */
  readonly maybe: boolean;
}

/** A command for a device attached to this adapter. */
export interface Downlink {
  readonly id: number;
  readonly deviceIntId: number;
  /** Relative to the mountpoint; "" means the device's default downlink topic. */
  readonly topic: string;
  readonly payload: Uint8Array;
  readonly qos: number;
  /** Epoch ms after which it must not be delivered; 0 = no limit. */
  readonly expiresAtMs: number;
  /**
   * MQTT 5.0 PUBLISH properties of the command, a JSON object text (userProperties, contentType,
   * payloadFormatIndicator, responseTopic, correlationData as UTF-8 text); absent when none. Other protocols ignore it.
   */
  readonly properties?: string;
  /** MQTT: the command went out before in a persistent session, unacknowledged (see ResumedFlow). */
  readonly resume?: ResumedFlow;
  /** LoRaWAN: a group command to send as one multicast frame (the id is the group's control log). */
  readonly loraMulticast?: LoraMulticastDownlink;
}

/**
 * DELIVERED: device acknowledged; SENT: written, no ack asked; FAILED: not deliverable; QUEUED: not delivered yet
 * (the device left, or the command expired, before it could take it): the registry keeps it queued until its TTL.
 */
export type DownlinkStatus = "DELIVERED" | "SENT" | "FAILED" | "QUEUED";

/** What a protocol reports for one downlink; the core turns it into a DownlinkResult. */
export interface DownlinkOutcome {
  readonly status: DownlinkStatus;
  readonly message?: string;
  /** QUEUED MQTT command of a persistent session that went out unacknowledged: how it goes again. */
  readonly resume?: ResumedFlow;
  /** A LoRaWAN multicast frame that went out: the gateways that sent it and the members they last heard. */
  readonly multicast?: { readonly gateways: number; readonly covered: number };
}

/** Callbacks for what the registry pushes to the adapter. */
export interface RegistryHandlers {
  /** Deliver a command; a missing handler or a throw reports FAILED. */
  downlink?(downlink: Downlink): Promise<DownlinkOutcome>;
  /** Close every connection of the device at once. */
  kick?(deviceIntId: number, reason: string): void;
  /** The device's sessions already carry the new policies when this runs. */
  policyUpdate?(deviceIntId: number, policies: readonly TopicPolicy[]): void;
  /**
   * The device's proxy subscriptions changed; its sessions already carry the
   * new list, `previous` is what they held before (to unsubscribe what is gone).
   */
  subscriptionUpdate?(
    deviceIntId: number,
    subscriptions: readonly ProxySubscription[],
    previous: readonly ProxySubscription[],
  ): void;
  /** The device's retained messages changed: `retained` is all of them now (one per topic). */
  retainedUpdate?(deviceIntId: number, retained: readonly RetainedMessage[]): void;
}

/** A listener certificate signed by the service CA, and that CA (which device certificates chain to), PEM. */
export interface ListenerCertificate {
  readonly certPem: string;
  readonly caPem: string;
}

/** Link health: connected means the registry answered Hello on the current stream. */
export type RegistryLinkState = "idle" | "connecting" | "connected" | "closed";

/**
 * Whether a request's caller has given up (its device hung up): an AbortSignal, or anything as cheap as a getter on
 * the device's connection, which a connect storm can afford per device where an AbortController and its listener
 * cost more.
 */
export interface GiveUpSignal {
  readonly aborted: boolean;
}

/**
 * Called once when an uplink settles: without an error once the registry acked it (after its durable write), with the
 * AdapterError that refused or dropped it otherwise. A callback rather than a promise: at tens of thousands of
 * uplinks a second a promise per uplink, its two resolvers and the caller's `then` closures were a measurable share of
 * the MQTT adapter's time (its CPU profile's `add`, and the garbage collector).
 */
export type UplinkSettled = (err?: Error) => void;

/** The registry as an adapter sees it. */
export interface RegistryClient {
  /** Unique per process start; scopes uplink sequence numbers. */
  readonly instanceId: string;
  readonly state: RegistryLinkState;
  /** Uplinks not yet acknowledged by the registry. */
  readonly pendingUplinks: number;
  /**
   * Checks credentials; never rejects (an unreachable registry answers UNAVAILABLE). Calls are paced: when many
   * devices connect at once they wait their turn; `signal` (aborted when the device hangs up) drops a waiting one.
   */
  authenticate(
    protocol: ProtocolName,
    credentials: DeviceCredentials,
    clientIp: string,
    signal?: GiveUpSignal,
    mqttSession?: MqttSessionAsk,
  ): Promise<AuthOutcome>;
  /** Reports a session as live (and lists it in every later Hello until closed). */
  sessionOpened(session: DeviceSession, info: SessionInfo): void;
  /** Reports a session's end; `reason` is for the connect log. */
  sessionClosed(session: DeviceSession, reason: string): void;
  /**
   * Reports an authentication the adapter refused by itself after the registry admitted the credentials (a DTLS
   * handshake whose Finished no candidate key verified): the registry writes its connect log with status 2. Dropped
   * while the link is down, as a log line would be.
   */
  reportAuthFailure(protocol: ProtocolName, credentials: DeviceCredentials, clientIp: string, reason: string): void;
  /** MQTT: writes a persistent session's subscriptions, or its end, to the registry's store (in order). */
  updateMqttSession(session: DeviceSession, report: MqttSessionReport): void;
  /**
   * Reports that a live session's device went to sleep or woke up (LwM2M queue mode); later Hellos re-announce the
   * session in that state. Ignored for a session that is not open.
   */
  sessionState(session: DeviceSession, sleeping: boolean): void;
  /**
   * Sends an uplink. Resolves only when the registry acked its sequence (after
   * the durable write); rejects with an AdapterError when the registry rejected
   * it, the buffer is full, the client closed first, or at once (RATE_LIMITED,
   * nothing sent) when the tenant is over its uplink rate on this adapter.
   */
  publish(uplink: Uplink): Promise<void>;
  /**
   * `publish` with a callback instead of a promise, for the hot path of an adapter: `settled` is called once, never
   * before this returns, without an error when the registry acked the uplink and with the error `publish` would have
   * rejected with otherwise. With `waitForRoom`, an uplink finding the buffer full waits for room instead of being
   * refused (UplinkBuffer.addOrWait), for devices that send no more until answered (MQTT QoS 1 and 2).
   */
  publishThen(uplink: Uplink, settled: UplinkSettled, waitForRoom?: boolean): void;
  /**
   * LoRaWAN: records the session an OTAA join created before the JoinAccept is sent; refused when the DevNonce was
   * used before or the DevAddr is taken. Never rejects (UNAVAILABLE when the registry could not be asked). A 1.1
   * session carries `lorawan11` (its keys and JoinNonce; the registry refuses a DevNonce or JoinNonce that does not
   * increase).
   */
  loraActivate(
    deviceIntId: number,
    devNonce: number,
    session: Pick<LoraSessionInfo, "devAddr" | "nwkSKey" | "appSKey" | "lorawan11">,
  ): Promise<{ result: LoraActivateResult; message: string }>;
  /** LoRaWAN: reports frame counters (batch them, e.g. once a second); the registry keeps the highest. */
  reportLoraCounters(counters: readonly LoraCounterReport[]): void;
  /** Replaces the handlers for registry-pushed messages. */
  setHandlers(handlers: RegistryHandlers): void;
  /**
   * Has the registry sign a TLS listener certificate for this adapter's own
   * key (`csrPem`, PKCS#10 PEM) naming `hostnames` (DNS names or IPs). Waits
   * while the registry is unreachable; rejects with AdapterError
   * REQUEST_REJECTED when it refuses the request, CLIENT_CLOSED on close().
   */
  issueListenerCertificate(csrPem: string, hostnames: readonly string[]): Promise<ListenerCertificate>;
  /** Opens the link; reconnects by itself until close(). */
  start(): void;
  /** Stops reconnecting, waits briefly for pending acks, and releases the connection. */
  close(): Promise<void>;
}
