import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { isUniqueViolation } from "../errors.js";
import { MAX_DEV_NONCES, sessionState, type LoraSessionState } from "./lora-session-state.js";

/** Why an activation was refused, or OK. */
export type ActivateResult = "OK" | "DEV_NONCE_REUSED" | "DEV_ADDR_TAKEN" | "NOT_ALLOWED";

const parse = (text: string | null) => (text ? (JSON.parse(text) as Record<string, unknown>) : null);

/**
 * Records the session an OTAA join created, before the network server sends the JoinAccept: the device must be an
 * unblocked OTAA LoRa device that may join (`canJoin`); a DevNonce it used before is a replayed JoinRequest; the
 * DevAddr must be no other device's (unique index). The counters restart at 0 and the nonce is remembered.
 */
export async function activateLoraSession(
  db: Kysely<Database>,
  deviceIntId: number,
  devNonce: number,
  session: { devAddr: string; nwkSKey: string; appSKey: string },
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
      if (before?.devNonces.includes(devNonce))
        return { result: "DEV_NONCE_REUSED", message: `DevNonce ${devNonce} was used before` };
      const state: LoraSessionState = {
        devAddr: session.devAddr.toUpperCase(),
        nwkSKey: session.nwkSKey,
        appSKey: session.appSKey,
        fcntUp: 0,
        fcntDown: 0,
        devNonces: [...(before?.devNonces ?? []), devNonce].slice(-MAX_DEV_NONCES),
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
      await tx
        .updateTable("devices")
        .set({ loraSession: JSON.stringify(state) })
        .where("id", "=", row.id)
        .execute();
    }
  });
}
