import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { isUniqueViolation } from "../errors.js";
import { MAX_DEV_NONCES, sessionState, type LoraSessionState } from "./lora-session-state.js";

/** Why an activation was refused, or OK. */
export type ActivateResult = "OK" | "DEV_NONCE_REUSED" | "DEV_ADDR_TAKEN" | "NOT_ALLOWED";

const parse = (text: string | null) => (text ? (JSON.parse(text) as Record<string, unknown>) : null);

/** The session a join created; a LoRaWAN 1.1 join adds its other keys and JoinNonce. */
export interface LoraActivation {
  devAddr: string;
  nwkSKey: string;
  appSKey: string;
  /** `rejoin`: made by a Rejoin-Request, whose RJcount the DevNonce argument carries. */
  lorawan11?: { fNwkSIntKey: string; sNwkSIntKey: string; nwkSEncKey: string; joinNonce: number; rejoin?: boolean };
}

/** Why a 1.1 join's nonces are refused (1.1 §6.2.4, §6.2.5: both are counters that only increase), or undefined. */
function nonceProblem11(
  before: LoraSessionState | null,
  devNonce: number | undefined,
  joinNonce: number,
): string | undefined {
  const lastDevNonce = before?.devNonces.at(-1);
  if (devNonce !== undefined && lastDevNonce !== undefined && devNonce <= lastDevNonce)
    return `DevNonce ${devNonce} does not increase past ${lastDevNonce}`;
  if (joinNonce < (before?.nextJoinNonce ?? 0)) return `JoinNonce ${joinNonce} was used before`;
  return undefined;
}

/**
 * Records the session an OTAA join created, before the network server sends the JoinAccept: the device must be an
 * unblocked OTAA LoRa device that may join (`canJoin`); a DevNonce it used before is a replayed JoinRequest; the
 * DevAddr must be no other device's (unique index). The counters restart at 0 and the nonce is remembered.
 */
export async function activateLoraSession(
  db: Kysely<Database>,
  deviceIntId: number,
  devNonce: number,
  session: LoraActivation,
): Promise<{ result: ActivateResult; message: string }> {
  // A DevAddr another device holds fails the update; the transaction is rolled back (PostgreSQL refuses to commit
  // after a failed statement) and the violation is answered outside it.
  const taken = { result: "DEV_ADDR_TAKEN", message: `DevAddr ${session.devAddr.toUpperCase()} is taken` } as const;
  return db
    .transaction()
    .execute(async (tx): Promise<{ result: ActivateResult; message: string }> => {
      const d = await tx
        .selectFrom("devices as d")
        .innerJoin("products as p", "p.id", "d.productIntId")
        .select(["d.deviceId", "d.blocked", "d.lora", "d.loraSession", "p.cloudProtocol"])
        .where("d.id", "=", deviceIntId)
        .executeTakeFirst();
      const lora = parse(d?.lora ?? null);
      if (!d || d.cloudProtocol !== 4 || lora?.type !== "otaa")
        return { result: "NOT_ALLOWED", message: "not an OTAA LoRa device" };
      if (d.blocked === 1) return { result: "NOT_ALLOWED", message: "device is blocked" };
      if (lora.canJoin !== true && lora.canJoin !== 1) return { result: "NOT_ALLOWED", message: "canJoin is off" };
      const before = sessionState(d.loraSession, lora, d.deviceId);
      const v11 = session.lorawan11;
      const rejoin = v11?.rejoin === true;
      if (!rejoin && before?.devNonces.includes(devNonce))
        return { result: "DEV_NONCE_REUSED", message: `DevNonce ${devNonce} was used before` };
      const problem = v11 && nonceProblem11(before, rejoin ? undefined : devNonce, v11.joinNonce);
      if (problem) return { result: "DEV_NONCE_REUSED", message: problem };
      const state: LoraSessionState = {
        devAddr: session.devAddr.toUpperCase(),
        nwkSKey: session.nwkSKey,
        appSKey: session.appSKey,
        fcntUp: 0,
        fcntDown: 0,
        devNonces: rejoin ? (before?.devNonces ?? []) : [...(before?.devNonces ?? []), devNonce].slice(-MAX_DEV_NONCES),
        ...(v11
          ? {
              fNwkSIntKey: v11.fNwkSIntKey,
              sNwkSIntKey: v11.sNwkSIntKey,
              nwkSEncKey: v11.nwkSEncKey,
              joinNonce: v11.joinNonce,
              nFcntDown: 0,
              aFcntDown: 0,
              nextJoinNonce: v11.joinNonce + 1,
            }
          : before?.nextJoinNonce !== undefined
            ? { nextJoinNonce: before.nextJoinNonce }
            : {}),
      };
      await tx
        .updateTable("devices")
        .set({ loraSession: JSON.stringify(state), loraDevAddr: state.devAddr })
        .where("id", "=", deviceIntId)
        .execute();
      return { result: "OK", message: "" };
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) return taken;
      throw err;
    });
}

/** Frame counters a network server reports: the next uplink counter expected and next downlink one to use. */
export interface LoraCounterReport {
  deviceIntId: number;
  fcntUp: number;
  fcntDown: number;
}

/**
 * Keeps the highest frame counters reported for each device (reports may come late or twice), in one
 * transaction, so a network server that restarts resumes from them. Devices without a session are skipped.
 */
export async function recordLoraCounters(db: Kysely<Database>, reports: readonly LoraCounterReport[]): Promise<void> {
  // Devices per query: far below either engine's bound-parameter limit, however large a report.
  const CHUNK = 500;
  // Each device's highest counters, gathered once: a report holds every device counted since the last one.
  const highest = new Map<number, LoraCounterReport>();
  for (const r of reports) {
    const h = highest.get(r.deviceIntId);
    if (h === undefined) highest.set(r.deviceIntId, { ...r });
    else {
      h.fcntUp = Math.max(h.fcntUp, r.fcntUp);
      h.fcntDown = Math.max(h.fcntDown, r.fcntDown);
    }
  }
  const ids = [...highest.keys()];
  for (let i = 0; i < ids.length; i += CHUNK) await recordChunk(db, ids.slice(i, i + CHUNK), highest);
}

async function recordChunk(db: Kysely<Database>, ids: number[], highest: ReadonlyMap<number, LoraCounterReport>) {
  await db.transaction().execute(async (tx) => {
    const rows = await tx
      .selectFrom("devices")
      .select(["id", "deviceId", "lora", "loraSession"])
      .where("id", "in", ids)
      .execute();
    for (const row of rows) {
      const state = sessionState(row.loraSession, parse(row.lora), row.deviceId);
      if (!state) continue;
      const h = highest.get(row.id)!;
      state.fcntUp = Math.max(state.fcntUp, h.fcntUp);
      state.fcntDown = Math.max(state.fcntDown, h.fcntDown);
      // A 1.1 session's report carries the higher of its two downlink counters: both resume from it, so a
      // restarted server skips some downlink counts but never uses one twice.
      if (state.sNwkSIntKey !== undefined) {
        state.nFcntDown = Math.max(state.nFcntDown ?? 0, h.fcntDown);
        state.aFcntDown = Math.max(state.aFcntDown ?? 0, h.fcntDown);
      }
      await tx
        .updateTable("devices")
        .set({ loraSession: JSON.stringify(state) })
        .where("id", "=", row.id)
        .execute();
    }
  });
}
