import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { recordAuthFailure } from "./connectivity.js";

/** Credentials as adapters present them, in plain types. */
export type DeviceCredentials =
  | { kind: "token"; clientId: string; username: string; token: string }
  | { kind: "certificate"; clientId: string; commonName: string; fingerprint: string };

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
}

/** A topic rule of the device (policies arrive with a later issue; the list is empty until then). */
export interface TopicRule {
  id: number;
  topic: string;
  access: number;
  allow: boolean;
}

export type AuthOutcome =
  | { ok: true; device: DeviceIdentity; policies: TopicRule[] }
  | { ok: false; result: "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED"; message: string };

/** Devices speak relative topics; commands with no topic go here. */
export const DEFAULT_DOWNLINK_TOPIC = "inbox";

/** MQTT over TCP and MQTT over WebSocket are one protocol family served by one adapter. */
function protocolAccepted(productProtocol: number, adapterProtocol: number): boolean {
  const family = (p: number) => (p === 6 ? 1 : p);
  return family(productProtocol) === family(adapterProtocol);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks a device's credentials for an adapter of `protocol`. Every failure
 * is written as a connect log with status 2 under the tenant of the device the
 * credentials named (no tenant when they named none).
 */
export async function authenticateDevice(
  db: Kysely<Database>,
  req: { protocol: number; credentials: DeviceCredentials; clientIp: string },
  now = Date.now(),
): Promise<AuthOutcome> {
  const c = req.credentials;
  if (c.kind !== "token") {
    await recordAuthFailure(db, { tenantId: null, deviceIntId: null, deviceId: c.clientId || null, deviceName: null, ip: req.clientIp, reason: "certificate authentication is not available yet" }, now);
    return { ok: false, result: "NOT_ALLOWED", message: "certificate authentication is not available yet" };
  }
  const row = await db
    .selectFrom("devices as d")
    .innerJoin("products as p", "p.id", "d.productIntId")
    .select(["d.id", "d.tenantId", "d.deviceId", "d.deviceName", "d.token", "d.blocked", "d.authType", "d.deviceType", "d.productIntId", "p.productId", "p.cloudProtocol"])
    .where("d.deviceUsername", "=", c.username)
    .executeTakeFirst();
  const deny = async (result: "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED", reason: string): Promise<AuthOutcome> => {
    await recordAuthFailure(db, { tenantId: row?.tenantId ?? null, deviceIntId: row?.id ?? null, deviceId: row?.deviceId ?? (c.clientId || null), deviceName: row?.deviceName ?? null, ip: req.clientIp, reason }, now);
    return { ok: false, result, message: reason };
  };
  if (!row || !sameSecret(c.token, row.token)) return deny("BAD_CREDENTIALS", "unknown username or wrong token");
  if (row.authType !== 1) return deny("NOT_ALLOWED", "device authenticates with a certificate");
  if (c.clientId && c.clientId !== row.deviceId) return deny("NOT_ALLOWED", "client id is not the device's deviceID");
  if (row.blocked === 1) return deny("BLOCKED", "device is blocked");
  if (!protocolAccepted(row.cloudProtocol, req.protocol)) return deny("NOT_ALLOWED", "device's product uses another protocol");
  return {
    ok: true,
    policies: [],
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
    },
  };
}
