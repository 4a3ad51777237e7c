import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { sessionState, text } from "../lora/lora-session-state.js";
import { admitDevice } from "./admit-device.js";
import { selectAuthDevice, type AuthDeviceRow } from "./auth-device-row.js";
import type { AuthOutcome, LoraDevice } from "./auth-outcome.js";
import { denier } from "./auth-refusal.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";

/** Class B ping-slot periodicity when the record names none: one ping slot per 128 s beacon period. */
const DEFAULT_PING_SLOT_PERIODICITY = 7;
const isPeriodicity = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 7;

/** The LoRa settings and network state of a device row, as the network server needs them. */
function loraDevice(row: AuthDeviceRow): LoraDevice {
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
    classB: flag(l.classB),
    pingSlotPeriodicity: isPeriodicity(l.pingSlotPeriodicity) ? l.pingSlotPeriodicity : DEFAULT_PING_SLOT_PERIODICITY,
    session: state && {
      devAddr: state.devAddr,
      nwkSKey: state.nwkSKey,
      appSKey: state.appSKey,
      fcntUp: state.fcntUp,
      fcntDown: state.fcntDown,
      ...(state.sNwkSIntKey !== undefined
        ? {
            fNwkSIntKey: state.fNwkSIntKey ?? state.nwkSKey,
            sNwkSIntKey: state.sNwkSIntKey,
            nwkSEncKey: state.nwkSEncKey ?? "",
            nFcntDown: state.nFcntDown ?? 0,
            aFcntDown: state.aFcntDown ?? 0,
            joinNonce: state.joinNonce ?? 0,
          }
        : {}),
    },
    usedDevNonces: state?.devNonces ?? [],
    macVersion: l.macVersion === "1.1" ? "1.1" : "1.0.x",
    nwkKey: l.macVersion === "1.1" ? text(l.nwkKey) : "",
    nextJoinNonce: state?.nextJoinNonce ?? 0,
  };
}

/**
 * A LoRa device heard by the network server: by DevEUI (a JoinRequest) or DevAddr (a data frame), both unique
 * service-wide. LoRaWAN authenticates each frame by its MIC, which the network server checks with the keys this
 * answers; the registry only names the device. Stamp: the DevEUI or DevAddr it was found by.
 */
export async function loraAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "lora" }>,
  now: number,
): Promise<AuthOutcome> {
  if (c.gatewayEui) return loraGatewayAuth(db, req, c.gatewayEui, now);
  const q = selectAuthDevice(db);
  const row = c.devEui
    ? await q.where("d.loraDevEui", "=", c.devEui.toUpperCase()).executeTakeFirst()
    : c.devAddr
      ? await q.where("d.loraDevAddr", "=", c.devAddr.toUpperCase()).executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, null, now);
  if (!row) return deny("BAD_CREDENTIALS", c.devEui ? "unknown DevEUI" : "unknown DevAddr");
  const outcome = await admitDevice(db, row, req.protocol, deny, `r:${(c.devEui || c.devAddr).toUpperCase()}`);
  return outcome.ok ? { ...outcome, lora: loraDevice(row) } : outcome;
}

/**
 * The LoRa gateways whose deviceID is `eui` in either case, at most two. The type and protocol are literals in the
 * SQL, so that SQLite and PostgreSQL find them through the partial index `devices_lora_gateways` (migration 0026).
 */
export function loraGatewaysNamed(db: Kysely<Database>, eui: string) {
  return selectAuthDevice(db)
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
async function loraGatewayAuth(db: Kysely<Database>, req: AuthRequest, eui: string, now: number): Promise<AuthOutcome> {
  const rows = await loraGatewaysNamed(db, eui).execute();
  const deny = denier(db, req, rows.length === 1 ? rows[0] : undefined, null, now);
  if (rows.length === 0) return deny("BAD_CREDENTIALS", "no LoRa gateway has this EUI as its deviceID");
  if (rows.length > 1) return deny("NOT_ALLOWED", "gateways of several tenants have this EUI as their deviceID");
  return admitDevice(db, rows[0]!, req.protocol, deny, `g:${eui.toUpperCase()}`);
}
