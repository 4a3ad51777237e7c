import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import { lwm2mBootstrapErrors, type Lwm2mBootstrapSettings } from "../lwm2m/lwm2m-bootstrap.js";

/** A device as it will be after a create or edit: what the creation rules look at. */
export interface DeviceDraft {
  /** The device's own id on edit (so it is not its own sibling or parent). */
  id?: number | undefined;
  tenantId: string;
  productIntId: number;
  /** cloudProtocol of the product: 1 MQTT, 2 CoAP, 3 LwM2M, 4 LoRa, 5 HTTP, 6 WebSocket, 7 Modbus. */
  protocol: number;
  deviceType: number;
  upLinkSystem: number | null;
  gateway: number | null;
  parentDevice: number | null;
  authType: number | null;
  deviceId: string | null;
  imei: string | null;
  autoSub: number | null;
  modBusIndex: number | null;
  lora: Record<string, unknown> | null;
  lwm2mBootstrap: Lwm2mBootstrapSettings | null;
}

const HEX = (n: number) => new RegExp(`^[0-9A-Fa-f]{${n}}$`);
/** LoRaWAN regional parameter sets the LoRa adapter can serve. */
export const LORA_REGIONS = [
  "EU868",
  "US915",
  "CN470",
  "CN779",
  "EU433",
  "AU915",
  "AS923",
  "AS923-1",
  "AS923-2",
  "AS923-3",
  "AS923-4",
  "KR920",
  "IN865",
  "RU864",
] as const;

const isInt = (v: unknown, min: number, max: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const isFlag = (v: unknown) => v === true || v === false || v === 0 || v === 1;

/** LoRaWAN MAC versions the network server speaks: 1.0.x when absent. */
const LORA_MAC_VERSIONS = ["1.0.x", "1.1"] as const;

/**
 * `lora.macVersion` and the 1.1 root key: a 1.1 device joins over the air with a NwkKey beside its AppKey (1.1
 * activation by personalization, with its four session keys, is not offered).
 */
function macVersionErrors(l: Record<string, unknown>, errors: Record<string, string>): void {
  const v = l.macVersion;
  if (v !== undefined && v !== null && !(LORA_MAC_VERSIONS as readonly unknown[]).includes(v)) {
    errors["lora.macVersion"] = `must be one of ${LORA_MAC_VERSIONS.join(", ")}`;
    return;
  }
  const nwkKey = l.nwkKey;
  const absent = nwkKey === undefined || nwkKey === null || nwkKey === "";
  if (v !== "1.1") {
    if (!absent) errors["lora.nwkKey"] = "only for macVersion 1.1";
    return;
  }
  if (l.type !== "otaa") errors["lora.macVersion"] = "1.1 is supported for otaa devices only";
  else if (absent) errors["lora.nwkKey"] = "required for macVersion 1.1";
  else if (typeof nwkKey !== "string" || !HEX(32).test(nwkKey)) errors["lora.nwkKey"] = "must be 32 hex digits";
}

/** `lora.classB` (true or false; a device is class B or class C) and `lora.pingSlotPeriodicity` (0..7). */
function classBErrors(l: Record<string, unknown>, errors: Record<string, string>): void {
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(l.classB) && !isFlag(l.classB)) errors["lora.classB"] = "must be true or false";
  else if ((l.classB === true || l.classB === 1) && (l.classC === true || l.classC === 1))
    errors["lora.classB"] = "a device is class B or class C, not both";
  if (given(l.pingSlotPeriodicity) && !isInt(l.pingSlotPeriodicity, 0, 7))
    errors["lora.pingSlotPeriodicity"] = "must be 0 to 7";
}

/** LoRa members by activation type (spec rules table); errors go under `lora.<member>`. */
function loraErrors(d: DeviceDraft, errors: Record<string, string>): void {
  const l = d.lora;
  if (!l || (l.type !== "otaa" && l.type !== "abp")) {
    errors["lora.type"] = "required: otaa or abp";
    return;
  }
  const need = (member: string, ok: (v: unknown) => boolean, what: string) => {
    if (l[member] === undefined || l[member] === null || l[member] === "") errors[`lora.${member}`] = "required";
    else if (!ok(l[member])) errors[`lora.${member}`] = what;
  };
  const hex = (n: number) => (v: unknown) => typeof v === "string" && HEX(n).test(v);
  need("fcntCheck", (v) => isInt(v, 0, 3), "must be 0 to 3");
  macVersionErrors(l, errors);
  classBErrors(l, errors);
  if (l.type === "otaa") {
    if (!d.deviceId || !HEX(16).test(d.deviceId)) errors.deviceID = "must be the DevEUI: 16 hex digits";
    need("appEUI", hex(16), "must be 16 hex digits");
    need("appKey", hex(32), "must be 32 hex digits");
    need("canJoin", isFlag, "must be true or false");
    // Optional for OTAA (EU868 when absent), but a region the network server cannot serve is refused here.
    if (l.region !== undefined && l.region !== null && !(LORA_REGIONS as readonly unknown[]).includes(l.region))
      errors["lora.region"] = `must be one of ${LORA_REGIONS.join(", ")}`;
  } else {
    if (!d.deviceId || !HEX(8).test(d.deviceId)) errors.deviceID = "must be the DevAddr: 8 hex digits";
    if (d.gateway === null) errors.gateway = "required for LoRa abp devices";
    need(
      "region",
      (v) => (LORA_REGIONS as readonly unknown[]).includes(v),
      `must be one of ${LORA_REGIONS.join(", ")}`,
    );
    need("nwkSKey", hex(32), "must be 32 hex digits");
    need("appSKey", hex(32), "must be 32 hex digits");
    need("fcntUp", (v) => isInt(v, 0, 2 ** 32 - 1), "must be a whole number, 0 or more");
    need("fcntDown", (v) => isInt(v, 0, 2 ** 32 - 1), "must be a whole number, 0 or more");
  }
}

/** Rules that need no database: deviceType/upLinkSystem and the members each protocol requires. */
function shapeErrors(d: DeviceDraft): Record<string, string> {
  const errors: Record<string, string> = {};
  if (d.deviceType === 1) {
    if (d.upLinkSystem === null) errors.upLinkSystem = "required when deviceType is 1";
    if (d.upLinkSystem === 2 && d.gateway === null) errors.gateway = "required when upLinkSystem is 2";
    if (d.upLinkSystem === 3 && d.parentDevice === null) errors.parentDevice = "required when upLinkSystem is 3";
  } else if (d.upLinkSystem !== null) {
    errors.upLinkSystem = "must be empty unless deviceType is 1";
  }
  // A device names a gateway or an upper device only when it connects through it (else it is listed under it).
  if (d.gateway !== null && d.upLinkSystem !== 2) errors.gateway = "must be empty unless upLinkSystem is 2";
  if (d.parentDevice !== null && d.upLinkSystem !== 3) errors.parentDevice = "must be empty unless upLinkSystem is 3";
  if ([1, 2, 5, 6, 7].includes(d.protocol) && d.authType === null) errors.authType = "required";
  // The members each protocol requires describe end devices; a gateway only needs its credentials.
  if (d.deviceType === 2) return errors;
  if (d.protocol === 3) {
    if (!d.imei) errors.IMEI = "required for LwM2M devices";
    else if (!/^\d{14,16}$/.test(d.imei)) errors.IMEI = "must be 14 to 16 digits";
    if (d.autoSub === null) errors.autoSub = "required for LwM2M devices";
  }
  lwm2mBootstrapErrors(d, errors);
  if (d.protocol === 4) loraErrors(d, errors);
  if (d.protocol === 7 && d.modBusIndex === null) errors.modBusIndex = "required for Modbus devices";
  return errors;
}

/** Checks gateway/parentDevice references and modBusIndex uniqueness among siblings. */
async function referenceErrors(db: Kysely<Database>, d: DeviceDraft, errors: Record<string, string>): Promise<void> {
  if (d.gateway !== null && !errors.gateway) {
    const g = await db
      .selectFrom("devices")
      .select("deviceType")
      .where("tenantId", "=", d.tenantId)
      .where("id", "=", d.gateway)
      .executeTakeFirst();
    if (!g || g.deviceType !== 2) errors.gateway = "no such gateway";
  }
  if (d.parentDevice !== null && !errors.parentDevice) {
    if (d.parentDevice === d.id) errors.parentDevice = "a device cannot be its own upper device";
    else {
      // Walk up from the new parent: meeting this device again would make a cycle.
      let at: number | null = d.parentDevice;
      for (let depth = 0; at !== null && depth < 32; depth++) {
        const row: { parentDevice: number | null; deviceType: number } | undefined = await db
          .selectFrom("devices")
          .select(["parentDevice", "deviceType"])
          .where("tenantId", "=", d.tenantId)
          .where("id", "=", at)
          .executeTakeFirst();
        if (!row || (depth === 0 && row.deviceType === 2)) {
          errors.parentDevice = "no such device";
          break;
        }
        if (row.parentDevice === d.id && d.id !== undefined) {
          errors.parentDevice = "would make a loop of upper devices";
          break;
        }
        at = row.parentDevice;
      }
    }
  }
  if (d.modBusIndex !== null && !errors.modBusIndex) {
    // Siblings: devices under the same gateway, or the same upper device, or (neither) cloud devices of the product.
    let q = db
      .selectFrom("devices")
      .select("id")
      .where("tenantId", "=", d.tenantId)
      .where("modBusIndex", "=", d.modBusIndex);
    if (d.gateway !== null) q = q.where("gateway", "=", d.gateway);
    else if (d.parentDevice !== null) q = q.where("parentDevice", "=", d.parentDevice);
    else
      q = q.where("productIntId", "=", d.productIntId).where("gateway", "is", null).where("parentDevice", "is", null);
    if (d.id !== undefined) q = q.where("id", "!=", d.id);
    if (await q.limit(1).executeTakeFirst()) errors.modBusIndex = "already used by a sibling device";
  }
}

/**
 * Applies every creation rule of the spec to a device draft, on create and
 * on edit alike; throws one FORM_INVALID naming every failing field.
 * Run it inside the transaction that writes the device, so two concurrent
 * writes cannot both take the same modBusIndex.
 */
export async function checkDeviceRules(db: Kysely<Database>, draft: DeviceDraft): Promise<void> {
  const errors = shapeErrors(draft);
  await referenceErrors(db, draft, errors);
  if (Object.keys(errors).length > 0) throw fail.form(errors);
}

/**
 * DATA_EXISTED naming `IMEI` when another device, in any tenant, has the same
 * IMEI: it is the LwM2M endpoint name that identifies the device to the
 * service. A unique index (migration 0005) backs this against concurrent writes.
 */
export async function assertImeiFree(db: Kysely<Database>, imei: string | null, exceptId?: number): Promise<void> {
  if (!imei) return;
  let q = db.selectFrom("devices").select("id").where("imei", "=", imei);
  if (exceptId !== undefined) q = q.where("id", "!=", exceptId);
  if (await q.limit(1).executeTakeFirst()) throw fail.exists("IMEI");
}
