import { hash, timingSafeEqual } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { recordAuthFailure } from "./connectivity.js";
import { queryIn } from "../store/query-in.js";
import { reusableInQuery } from "../store/reusable-query.js";
import { policiesOfDevice, policiesOfDevices } from "./policies.js";
import { subscriptionsOfDevice, subscriptionsOfDevices } from "./subscriptions.js";
import { sessionState, text, type LoraSessionState } from "../lora/lora-session-state.js";

/** Credentials as adapters present them, in plain types. */
export type DeviceCredentials =
  | { kind: "token"; clientId: string; username: string; token: string }
  | { kind: "certificate"; clientId: string; commonName: string; fingerprint: string }
  | { kind: "modbus"; gatewayDeviceId: string; gatewayUsername: string; gatewayToken: string; index: number }
  | { kind: "lwm2m"; endpoint: string }
  | { kind: "lora"; devEui: string; devAddr: string; gatewayEui?: string };

/** Who an authenticated device is, as the adapter needs to know it. */
export interface DeviceIdentity {
  tenantId: string;
  deviceIntId: number;
  deviceId: string;
  deviceName: string;
  productIntId: number;
  productId: string;
  protocol: number;
  /** Private topic namespace: the adapter prefixes it to every topic. */
  mountpoint: string;
  defaultDownlinkTopic: string;
  deviceType: number;
  isGateway: boolean;
  /** autoSub 1: the LwM2M server observes every object instance the device registers. */
  autoSub: boolean;
}

/** A topic rule of the device (a bound policy), as the adapters enforce it. */
export interface TopicRule {
  id: number;
  topic: string;
  access: number;
  allow: boolean;
}

/** A topic filter the adapter subscribes the device to on its behalf. */
export interface ProxyFilter {
  topic: string;
  qos: number;
}

export type AuthOutcome =
  | {
      ok: true;
      device: DeviceIdentity;
      policies: TopicRule[];
      subscriptions: ProxyFilter[];
      /** Digest of the credentials admitted (see credentialStamp). */
      credentialStamp: string;
      /** LoRa devices: what the network server needs (keys, counters, settings). */
      lora?: LoraDevice;
    }
  | { ok: false; result: "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED"; message: string };

/** What a LoRaWAN network server needs of a device (proto LoraDevice). */
export interface LoraDevice {
  activation: "otaa" | "abp";
  devEui: string;
  appEui: string;
  appKey: string;
  canJoin: boolean;
  fcntCheck: number;
  region: string;
  classC: boolean;
  session: Omit<LoraSessionState, "devNonces"> | null;
  usedDevNonces: number[];
}

/** Devices speak relative topics; commands with no topic go here. */
export const DEFAULT_DOWNLINK_TOPIC = "inbox";

/**
 * MQTT over TCP and MQTT over WebSocket are one protocol family served by one adapter. A gateway is also admitted
 * by the adapter of its gatewayProtocol: a Modbus gateway's adapter speaks Modbus to the slaves, whatever protocol
 * the gateway's product names.
 */
function protocolAccepted(row: DeviceRow, adapterProtocol: number): boolean {
  const family = (p: number | null) => (p === 6 ? 1 : p);
  if (family(row.cloudProtocol) === family(adapterProtocol)) return true;
  return row.deviceType === 2 && family(row.gatewayProtocol) === family(adapterProtocol);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The device columns every check reads. */
function selectDevice(db: Kysely<Database>) {
  return db
    .selectFrom("devices as d")
    .innerJoin("products as p", "p.id", "d.productIntId")
    .select([
      "d.id",
      "d.tenantId",
      "d.deviceId",
      "d.deviceName",
      "d.token",
      "d.blocked",
      "d.authType",
      "d.deviceType",
      "d.productIntId",
      "d.gatewayProtocol",
      "d.gateway",
      "d.modBusIndex",
      "d.autoSub",
      "d.lora",
      "d.loraSession",
      "p.productId",
      "p.cloudProtocol",
    ]);
}

type DeviceRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectDevice>["executeTakeFirst"]>>>;

type AuthRequest = { protocol: number; credentials: DeviceCredentials; clientIp: string };

type Deny = (result: "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED", reason: string) => Promise<AuthOutcome>;

/** What the credentials claim the device is called, for the connect log of a refusal. */
function claimedId(c: DeviceCredentials): string {
  switch (c.kind) {
    case "modbus":
      return `${c.gatewayDeviceId}!${c.index}`;
    case "lwm2m":
      return c.endpoint;
    case "lora":
      return c.gatewayEui || c.devEui || c.devAddr;
    default:
      return c.clientId;
  }
}

/**
 * A refusal recorder: writes a connect log with status 2 under the device's
 * tenant (or `tenantId` when no device was found, null when none is known).
 */
function denier(
  db: Kysely<Database>,
  req: AuthRequest,
  row: DeviceRow | undefined,
  tenantId: string | null,
  now: number,
): Deny {
  return async (result, reason) => {
    const c = req.credentials;
    const clientId = claimedId(c) || null;
    await recordAuthFailure(
      db,
      {
        tenantId: row?.tenantId ?? tenantId,
        deviceIntId: row?.id ?? null,
        deviceId: row?.deviceId ?? clientId,
        deviceName: row?.deviceName ?? null,
        ip: req.clientIp,
        reason,
      },
      now,
    );
    return { ok: false, result, message: reason };
  };
}

/**
 * What a session's credentials were, as a string the adapter echoes back: `t:` and a digest of the username and
 * token (so neither travels), or `c:` and the certificate record's id. When the session is re-announced after an
 * outage, `sessionRevocations` recomputes it from the current records: a different value means they changed.
 */
export function tokenStamp(username: string, token: string): string {
  // One-shot hash of the same bytes as update(username), update("\0"), update(token): no Hash object per connect.
  return `t:${hash("sha256", `${username}\0${token}`, "base64url").slice(0, 22)}`;
}

/** The stamp of a session admitted by the certificate record `certIntId`. */
export const certificateStamp = (certIntId: number) => `c:${certIntId}`;

/** Why a check refuses a device: the answer and the reason for its connect log. */
type Refusal = readonly ["BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED", string];

/** The checks shared by every credential kind: blocked, protocol. */
function sharedRefusal(row: DeviceRow, protocol: number): Refusal | undefined {
  if (row.blocked === 1) return ["BLOCKED", "device is blocked"];
  if (!protocolAccepted(row, protocol)) return ["NOT_ALLOWED", "device's product uses another protocol"];
  return undefined;
}

/** An admitted device's outcome: the identity the adapter needs, with its topic rules and proxy subscriptions. */
function admitted(
  row: DeviceRow,
  credentialStamp: string,
  policies: TopicRule[],
  subscriptions: ReadonlyArray<{ topic: string; qos: number }>,
): AuthOutcome {
  return {
    ok: true,
    credentialStamp,
    policies,
    subscriptions: subscriptions.map((s) => ({ topic: s.topic, qos: s.qos })),
    device: {
      tenantId: row.tenantId,
      deviceIntId: row.id,
      deviceId: row.deviceId,
      deviceName: row.deviceName,
      productIntId: row.productIntId,
      productId: row.productId,
      protocol: row.cloudProtocol,
      mountpoint: `d/${row.id}/`,
      defaultDownlinkTopic: DEFAULT_DOWNLINK_TOPIC,
      deviceType: row.deviceType,
      isGateway: row.deviceType === 2,
      autoSub: row.autoSub === 1,
    },
  };
}

/** The checks shared by every credential kind (blocked, protocol), then the identity the adapter needs. */
async function admit(
  db: Kysely<Database>,
  row: DeviceRow,
  protocol: number,
  deny: Deny,
  credentialStamp: string,
): Promise<AuthOutcome> {
  const refusal = sharedRefusal(row, protocol);
  if (refusal) return deny(...refusal);
  // The device's topic rules travel with its session: the adapter enforces them with no call per message.
  const [policies, subscriptions] = await Promise.all([
    policiesOfDevice(db, row.id),
    subscriptionsOfDevice(db, row.id),
  ]);
  return admitted(row, credentialStamp, policies, subscriptions);
}

/** The devices of a batch's usernames (IN list), compiled once per list length (see reusableInQuery). */
const devicesByUsername = reusableInQuery((db: Kysely<Database>, usernames: string[]) =>
  selectDevice(db).select("d.deviceUsername").where("d.deviceUsername", "in", usernames),
);

type TokenCredentials = Extract<DeviceCredentials, { kind: "token" }>;

const UNKNOWN_TOKEN: Refusal = ["BAD_CREDENTIALS", "unknown username or wrong token"];

/** The checks of token credentials against the device of their username (undefined: no device has it). */
function tokenRefusal(row: DeviceRow | undefined, c: TokenCredentials): Refusal | undefined {
  if (!row || !sameSecret(c.token, row.token)) return UNKNOWN_TOKEN;
  if (row.authType !== 1) return ["NOT_ALLOWED", "device authenticates with a certificate"];
  if (c.clientId && c.clientId !== row.deviceId) return ["NOT_ALLOWED", "client id is not the device's deviceID"];
  return undefined;
}

/**
 * authType 1: deviceUsername (unique service-wide) and token; a client id, when sent, must be the deviceID. One
 * request is a batch of one: the same checks and queries as AuthenticateBatch's (authenticateTokens).
 */
async function byToken(db: Kysely<Database>, req: AuthRequest, c: TokenCredentials, now: number): Promise<AuthOutcome> {
  const [outcome] = await authenticateTokens(db, [{ ...req, credentials: c }], now);
  return outcome!;
}

/** A request with token credentials (MQTT username and password, HTTP Basic, …): nearly all of a connect storm. */
export type TokenAuthRequest = AuthRequest & { credentials: TokenCredentials };

/**
 * Checks the token credentials of several requests, answering each as authenticateDevice would (refusals logged the
 * same way), in request order. The devices, their topic rules and their proxy subscriptions are read with one query
 * each for the whole batch (IN lists, see queryIn) instead of three per device: the per-device statements were most
 * of the central node's SQLite time in a connect storm.
 */
export async function authenticateTokens(
  db: Kysely<Database>,
  reqs: readonly TokenAuthRequest[],
  now = Date.now(),
): Promise<AuthOutcome[]> {
  const rows = await queryIn(
    reqs.map((r) => r.credentials.username),
    (usernames) => devicesByUsername(db, usernames),
  );
  const byUsername = new Map(rows.map((r) => [r.deviceUsername, r]));
  const checked = reqs.map((req) => {
    const row = byUsername.get(req.credentials.username);
    const refusal = tokenRefusal(row, req.credentials) ?? (row && sharedRefusal(row, req.protocol));
    return { req, row, refusal };
  });
  const admissible = checked.flatMap((x) => (x.row && !x.refusal ? [x.row.id] : []));
  const [policies, subscriptions] = await Promise.all([
    policiesOfDevices(db, admissible),
    subscriptionsOfDevices(db, admissible),
  ]);
  const outcomes: AuthOutcome[] = [];
  for (const { req, row, refusal } of checked) {
    const c = req.credentials;
    // Refusals one after another: each writes its connect log, and a batch of them must not crowd the connection.
    if (refusal || !row) outcomes.push(await denier(db, req, row, null, now)(...(refusal ?? UNKNOWN_TOKEN)));
    else
      outcomes.push(
        admitted(row, tokenStamp(c.username, c.token), policies.get(row.id) ?? [], subscriptions.get(row.id) ?? []),
      );
  }
  return outcomes;
}

/** SHA-256 fingerprints compare as lower-case hex without separators. */
const normalFingerprint = (f: string) => f.replace(/:/g, "").toLowerCase();

/**
 * authType 2 (mutual TLS; the adapter has verified the chain): the
 * certificate with this CN and fingerprint must exist and be enabled, and
 * the client id must be the deviceID of an authType 2 device of the
 * certificate's tenant that is bound to it.
 */
async function byCertificate(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "certificate" }>,
  now: number,
): Promise<AuthOutcome> {
  const cert = await db
    .selectFrom("certs")
    .select(["id", "tenantId", "enable"])
    .where("cn", "=", c.commonName)
    .where("fingerprint", "=", normalFingerprint(c.fingerprint))
    .executeTakeFirst();
  const row =
    cert && c.clientId
      ? await selectDevice(db)
          .where("d.tenantId", "=", cert.tenantId)
          .where("d.deviceId", "=", c.clientId)
          .executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, cert?.tenantId ?? null, now);
  if (!cert) return deny("BAD_CREDENTIALS", "unknown certificate");
  if (!row) return deny("BAD_CREDENTIALS", "client id is not a deviceID of the certificate's tenant");
  if (cert.enable !== 1) return deny("NOT_ALLOWED", "certificate disabled");
  if (row.authType !== 2) return deny("NOT_ALLOWED", "device authenticates with a token");
  const bound = await db
    .selectFrom("deviceCerts")
    .select("certIntId")
    .where("deviceIntId", "=", row.id)
    .where("certIntId", "=", cert.id)
    .executeTakeFirst();
  if (!bound) return deny("NOT_ALLOWED", "device is not bound to this certificate");
  return admit(db, row, req.protocol, deny, certificateStamp(cert.id));
}

/** The stamp of a Modbus slave session: the gateway and unit id it was admitted under. */
export const modbusStamp = (gatewayIntId: number, index: number) => `m:${gatewayIntId}:${index}`;

/**
 * A Modbus slave, polled by the adapter of its gateway: the gateway's own token credentials must hold (as
 * `byToken` checks them, the gateway not blocked), and the slave is the gateway's device whose modBusIndex is the
 * unit id. Refusals are logged under the gateway's tenant with the device named `<gatewayID>!<unit>` when unknown.
 */
async function byModbus(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "modbus" }>,
  now: number,
): Promise<AuthOutcome> {
  const gateway = await selectDevice(db).where("d.deviceUsername", "=", c.gatewayUsername).executeTakeFirst();
  const gatewayOk = gateway && sameSecret(c.gatewayToken, gateway.token) && gateway.deviceId === c.gatewayDeviceId;
  const row =
    gatewayOk && gateway.deviceType === 2
      ? await selectDevice(db)
          .where("d.gateway", "=", gateway.id)
          .where("d.modBusIndex", "=", c.index)
          .executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, gatewayOk ? gateway.tenantId : null, now);
  if (!gatewayOk || gateway.authType !== 1) return deny("BAD_CREDENTIALS", "unknown gateway or wrong token");
  if (gateway.blocked === 1) return deny("BLOCKED", "gateway is blocked");
  if (gateway.deviceType !== 2) return deny("NOT_ALLOWED", "not a gateway");
  if (!row) return deny("BAD_CREDENTIALS", `no device of the gateway has modBusIndex ${c.index}`);
  return admit(db, row, req.protocol, deny, modbusStamp(gateway.id, c.index));
}

/** The stamp of an LwM2M session: the endpoint name (IMEI) it registered with. */
export const lwm2mStamp = (endpoint: string) => `l:${endpoint}`;

/**
 * An LwM2M client registering with its endpoint name, which is the device's IMEI (unique service-wide). LwM2M runs
 * in NoSec mode here (no DTLS server exists for Node): the endpoint name is all a client presents, so only a
 * registered, unblocked device of an LwM2M product is let in (docs/devices/lwm2m.md says what limits the risk).
 */
async function byLwm2m(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "lwm2m" }>,
  now: number,
): Promise<AuthOutcome> {
  const row = c.endpoint ? await selectDevice(db).where("d.imei", "=", c.endpoint).executeTakeFirst() : undefined;
  const deny = denier(db, req, row, null, now);
  if (!row) return deny("BAD_CREDENTIALS", "no device has this endpoint name as its IMEI");
  return admit(db, row, req.protocol, deny, lwm2mStamp(c.endpoint));
}

/** The LoRa settings and network state of a device row, as the network server needs them. */
function loraDevice(row: DeviceRow): LoraDevice {
  const l = (row.lora ? JSON.parse(row.lora) : {}) as Record<string, unknown>;
  const state = sessionState(row.loraSession, l, row.deviceId);
  const flag = (v: unknown) => v === true || v === 1;
  return {
    activation: l.type === "abp" ? "abp" : "otaa",
    devEui: l.type === "otaa" ? row.deviceId.toUpperCase() : "",
    appEui: text(l.appEUI),
    appKey: text(l.appKey),
    canJoin: flag(l.canJoin),
    fcntCheck: Number(l.fcntCheck ?? 0),
    region: text(l.region) || "EU868",
    classC: flag(l.classC),
    session: state && {
      devAddr: state.devAddr,
      nwkSKey: state.nwkSKey,
      appSKey: state.appSKey,
      fcntUp: state.fcntUp,
      fcntDown: state.fcntDown,
    },
    usedDevNonces: state?.devNonces ?? [],
  };
}

/**
 * A LoRa device heard by the network server: by DevEUI (a JoinRequest) or DevAddr (a data frame), both unique
 * service-wide. LoRaWAN authenticates each frame by its MIC, which the network server checks with the keys this
 * answers; the registry only names the device. Stamp: the DevEUI or DevAddr it was found by.
 */
async function byLora(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "lora" }>,
  now: number,
): Promise<AuthOutcome> {
  if (c.gatewayEui) return byLoraGateway(db, req, c.gatewayEui, now);
  const q = selectDevice(db);
  const row = c.devEui
    ? await q.where("d.loraDevEui", "=", c.devEui.toUpperCase()).executeTakeFirst()
    : c.devAddr
      ? await q.where("d.loraDevAddr", "=", c.devAddr.toUpperCase()).executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, null, now);
  if (!row) return deny("BAD_CREDENTIALS", c.devEui ? "unknown DevEUI" : "unknown DevAddr");
  const outcome = await admit(db, row, req.protocol, deny, `r:${(c.devEui || c.devAddr).toUpperCase()}`);
  return outcome.ok ? { ...outcome, lora: loraDevice(row) } : outcome;
}

/**
 * The LoRa gateways whose deviceID is `eui` in either case, at most two. The type and protocol are literals in the
 * SQL, so that SQLite and PostgreSQL find them through the partial index `devices_lora_gateways` (migration 0026).
 */
export function loraGatewaysNamed(db: Kysely<Database>, eui: string) {
  return selectDevice(db)
    .where("d.deviceId", "in", [eui.toLowerCase(), eui.toUpperCase()])
    .where("d.deviceType", "=", sql.lit(2))
    .where("d.gatewayProtocol", "=", sql.lit(4))
    .limit(2);
}

/**
 * A LoRa gateway heard by the network server: a gateway record (deviceType 2) with gatewayProtocol 4 whose deviceID
 * is the EUI its packet forwarder sends (16 hex digits, either case). The packet forwarder protocol carries no
 * secret, so the EUI is all there is (docs/devices/lorawan.md). An EUI held by gateways of two tenants is refused
 * rather than guessed. Stamp: `g:` and the EUI.
 */
async function byLoraGateway(db: Kysely<Database>, req: AuthRequest, eui: string, now: number): Promise<AuthOutcome> {
  const rows = await loraGatewaysNamed(db, eui).execute();
  const deny = denier(db, req, rows.length === 1 ? rows[0] : undefined, null, now);
  if (rows.length === 0) return deny("BAD_CREDENTIALS", "no LoRa gateway has this EUI as its deviceID");
  if (rows.length > 1) return deny("NOT_ALLOWED", "gateways of several tenants have this EUI as their deviceID");
  return admit(db, rows[0]!, req.protocol, deny, `g:${eui.toUpperCase()}`);
}

/**
 * Checks a device's credentials for an adapter of `protocol`. Every failure
 * is written as a connect log with status 2 under the tenant of the device the
 * credentials named (no tenant when they named none).
 */
export async function authenticateDevice(
  db: Kysely<Database>,
  req: AuthRequest,
  now = Date.now(),
): Promise<AuthOutcome> {
  const c = req.credentials;
  switch (c.kind) {
    case "token":
      return byToken(db, req, c, now);
    case "certificate":
      return byCertificate(db, req, c, now);
    case "modbus":
      return byModbus(db, req, c, now);
    case "lwm2m":
      return byLwm2m(db, req, c, now);
    case "lora":
      return byLora(db, req, c, now);
  }
}
