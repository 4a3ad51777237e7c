import type { Insertable, Transaction } from "kysely";
import type { Database, DevicesTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { assertCertsOfTenant } from "./certs.js";
import { assertImeiFree, checkDeviceRules, type DeviceDraft } from "./device-rules.js";
import { DESCRIPTIVE_FIELDS, type DeviceInput } from "./device-input.js";
import { draftOf, replaceCerts } from "./device-write.js";
import { randomToken, uuid } from "./ids.js";
import { loraKeys } from "../lora/lora-keys.js";
import { lwm2mBootstrapText } from "../lwm2m/lwm2m-bootstrap.js";

/** What the creation rules need of a device's product. */
export interface ProductRef {
  id: number;
  cloudProtocol: number;
}

/** deviceUsernames (service-wide) and deviceIDs (in the tenant) already taken: a batch looks them up at once. */
export interface TakenKeys {
  usernames: Set<string>;
  deviceIds: Set<string>;
}

/**
 * Checks one new device against every creation rule, inside the caller's transaction (which holds the tenant lock):
 * rules, certificates, a free IMEI, deviceID and deviceUsername. Answers the row to insert; writes nothing, so a
 * RegistryError leaves nothing behind. One device and a batch go through the same checks (`known`: the batch's keys).
 */
export async function checkNewDevice(
  tx: Transaction<Database>,
  caller: Caller,
  product: ProductRef,
  input: DeviceInput,
  now: number,
  known?: TakenKeys,
): Promise<Insertable<DevicesTable>> {
  const deviceType = input.deviceType ?? 1;
  const values = {
    ...Object.fromEntries(DESCRIPTIVE_FIELDS.map((k) => [k, input[k] ?? null])),
    // An empty IMEI is none: the unique index leaves nulls alone.
    imei: input.imei || null,
    deviceType,
    upLinkSystem: input.upLinkSystem ?? null,
    gateway: input.gateway ?? null,
    parentDevice: input.parentDevice ?? null,
    authType: input.authType ?? null,
    // A LoRa end device's deviceID is its DevEUI or DevAddr: never generated.
    deviceId: input.deviceId ?? (product.cloudProtocol === 4 && deviceType !== 2 ? null : uuid()),
    lora: input.lora ?? null,
    lwm2mBootstrap: input.lwm2mBootstrap ?? null,
  };
  await checkDeviceRules(
    tx,
    draftOf(caller.tenantId, product.cloudProtocol, { ...values, productIntId: product.id } as Omit<
      DeviceDraft,
      "tenantId" | "protocol"
    >),
  );
  if (input.certs?.length) await assertCertsOfTenant(tx, caller.tenantId, input.certs);
  await assertImeiFree(tx, values.imei);
  const deviceUsername = input.deviceUsername ?? uuid();
  // Checked before the insert so that a taken key fails this device only (PostgreSQL would abort the transaction):
  // against the keys a batch looked up at once, else with two lookups, each on its unique index.
  const isTaken = async (column: "deviceUsername" | "deviceId", value: string, tenantId?: string) => {
    if (known) return (column === "deviceUsername" ? known.usernames : known.deviceIds).has(value);
    let q = tx.selectFrom("devices").select("id").where(column, "=", value);
    if (tenantId !== undefined) q = q.where("tenantId", "=", tenantId);
    return (await q.limit(1).executeTakeFirst()) !== undefined;
  };
  if (await isTaken("deviceUsername", deviceUsername)) throw fail.exists("deviceUsername");
  if (values.deviceId !== null && (await isTaken("deviceId", values.deviceId, caller.tenantId)))
    throw fail.exists("deviceID");
  // A LoRa device's DevEUI or DevAddr is unique across tenants (frames name none): checked the same way.
  const lora = loraKeys(product.cloudProtocol, deviceType, values.deviceId!, values.lora);
  const loraTaken = async (column: "loraDevEui" | "loraDevAddr", value: string | null) =>
    value !== null && (await tx.selectFrom("devices").select("id").where(column, "=", value).executeTakeFirst());
  if ((await loraTaken("loraDevEui", lora.loraDevEui)) || (await loraTaken("loraDevAddr", lora.loraDevAddr)))
    throw fail.exists("deviceID");
  const row = {
    ...values,
    authType: values.authType ?? 1,
    deviceId: values.deviceId!,
    lora: values.lora ? JSON.stringify(values.lora) : null,
    lwm2mBootstrap: lwm2mBootstrapText(values.lwm2mBootstrap),
    ...lora,
    tenantId: caller.tenantId,
    userIntId: caller.userIntId,
    productIntId: product.id,
    deviceName: input.deviceName,
    deviceUsername,
    token: input.token ?? randomToken(),
    blocked: input.blocked ?? 0,
    deviceStatus: 0,
    clientIp: null,
    connectedAt: null,
    keepAlive: null,
    createAt: now,
    updateAt: null,
  };
  known?.usernames.add(deviceUsername);
  known?.deviceIds.add(values.deviceId!);
  return row;
}

/**
 * Checks one new device (`checkNewDevice`) and inserts it with its certificate bindings; answers its id. For the
 * devices whose checks read other devices, which a batch cannot insert together.
 */
export async function insertDevice(
  tx: Transaction<Database>,
  caller: Caller,
  product: ProductRef,
  input: DeviceInput,
  now: number,
  known?: TakenKeys,
): Promise<number> {
  const row = await checkNewDevice(tx, caller, product, input, now, known);
  const { id } = await tx.insertInto("devices").values(row).returning("id").executeTakeFirstOrThrow();
  await replaceCerts(tx, id, input.certs, now);
  return id;
}
