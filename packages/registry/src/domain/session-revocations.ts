import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { certificateStamp } from "./cert-auth.js";
import { lwm2mStamp } from "./lwm2m-auth.js";
import { modbusStamp } from "./modbus-auth.js";
import { tokenStamp } from "./token-auth.js";

/** A session an adapter holds, as far as its admission is concerned. */
export interface HeldSession {
  readonly sessionId: string;
  readonly deviceIntId: number;
  /** The credential stamp it was admitted with; "" when the adapter did not echo one (not checked then). */
  readonly credentialStamp: string;
}

/** Ids per `where … in` query: far below either engine's bound-parameter limit. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Which of these sessions must end because the records changed since they were admitted: the device was deleted
 * or blocked, its username or token changed, its certificate was disabled, unbound or deleted, or (a Modbus slave)
 * its gateway or modBusIndex changed, or (an LwM2M client) its IMEI, the endpoint name it registered with, changed.
 * Answers sessionId → reason, for the sessions to kick; two queries per 500 sessions, so an adapter re-announcing
 * its sessions after an outage is checked in one pass.
 */
export async function sessionRevocations(
  db: Kysely<Database>,
  sessions: readonly HeldSession[],
): Promise<Map<string, string>> {
  const revoked = new Map<string, string>();
  const ids = [...new Set(sessions.map((s) => s.deviceIntId))];
  const devices = new Map<number, DeviceCredentialRow>();
  const certs = new Map<string, number>(); // "<deviceIntId>:<certIntId>" → enable
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom("devices")
      .select(["id", "blocked", "deviceUsername", "token", "authType", "gateway", "modBusIndex", "imei"])
      .where("id", "in", part)
      .execute();
    for (const r of rows) devices.set(r.id, r);
    const bound = await db
      .selectFrom("deviceCerts as dc")
      .innerJoin("certs as c", "c.id", "dc.certIntId")
      .select(["dc.deviceIntId", "dc.certIntId", "c.enable"])
      .where("dc.deviceIntId", "in", part)
      .execute();
    for (const b of bound) certs.set(`${b.deviceIntId}:${b.certIntId}`, b.enable);
  }
  for (const s of sessions) {
    const why = revocationReason(s, devices.get(s.deviceIntId), certs);
    if (why) revoked.set(s.sessionId, why);
  }
  return revoked;
}

type DeviceCredentialRow = {
  blocked: number;
  deviceUsername: string;
  token: string;
  authType: number;
  gateway: number | null;
  modBusIndex: number | null;
  imei: string | null;
};

function revocationReason(
  s: HeldSession,
  d: DeviceCredentialRow | undefined,
  certs: Map<string, number>,
): string | undefined {
  if (!d) return "device deleted";
  if (d.blocked === 1) return "device blocked";
  if (s.credentialStamp === "") return undefined;
  if (s.credentialStamp.startsWith("c:")) return certificateProblem(s, d.authType, certs);
  // A Modbus slave is admitted under its gateway's credentials (the gateway's own session answers for those).
  if (s.credentialStamp.startsWith("m:"))
    return d.gateway !== null && d.modBusIndex !== null && s.credentialStamp === modbusStamp(d.gateway, d.modBusIndex)
      ? undefined
      : "gateway or modBusIndex changed";
  if (s.credentialStamp.startsWith("l:"))
    return d.imei !== null && s.credentialStamp === lwm2mStamp(d.imei) ? undefined : "IMEI changed";
  if (d.authType !== 1 || s.credentialStamp !== tokenStamp(d.deviceUsername, d.token))
    return "device credentials changed";
  return undefined;
}

function certificateProblem(s: HeldSession, authType: number, certs: Map<string, number>): string | undefined {
  if (authType !== 2) return "device credentials changed";
  const certIntId = Number(s.credentialStamp.slice(2));
  const enable = certs.get(`${s.deviceIntId}:${certIntId}`);
  if (certificateStamp(certIntId) !== s.credentialStamp || enable === undefined)
    return "certificate unbound or deleted";
  return enable === 1 ? undefined : "certificate disabled";
}
