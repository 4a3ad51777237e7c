import type { Kysely, Selectable } from "kysely";
import type { Database, DevicesTable } from "../store/schema.js";
import { fail, isUniqueViolation, RegistryError } from "../errors.js";
import type { Caller } from "./caller.js";
import { randomToken, uuid } from "./ids.js";
import { paginate, type ListResult, type Page } from "./list.js";
import { getProductByProductId } from "./products.js";

/** A device row with the names the API shows beside the ids. */
export type Device = Selectable<DevicesTable> & {
  productId: string;
  productName: string;
  cloudProtocol: number;
  gatewayName: string | null;
  parentDeviceName: string | null;
  createUser: string | null;
};

/** Descriptive attributes a caller may set freely. */
export const DESCRIPTIVE_FIELDS = [
  "carrier", "physicalNetwork", "imei", "imsi", "autoSub", "modBusIndex", "latitude", "longitude", "location", "lora",
  "manufacturer", "serialNumber", "softVersion", "hardwareVersion", "description", "deviceConsoleIp",
  "deviceConsoleUsername", "deviceConsolePort", "metaData", "scopes",
] as const satisfies ReadonlyArray<keyof DevicesTable>;

/** What a caller sends to create a device (already shape-validated by the API). */
export type DeviceInput = {
  productId: string;
  deviceName: string;
  deviceType?: number | undefined;
  upLinkSystem?: number | null | undefined;
  gateway?: number | null | undefined;
  parentDevice?: number | null | undefined;
  authType?: number | undefined;
  deviceId?: string | undefined;
  deviceUsername?: string | undefined;
  token?: string | undefined;
} & { [K in (typeof DESCRIPTIVE_FIELDS)[number]]?: DevicesTable[K] | undefined };

function selectDevices(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("devices as d")
    .innerJoin("products as p", "p.id", "d.productIntId")
    .leftJoin("devices as g", "g.id", "d.gateway")
    .leftJoin("devices as pd", "pd.id", "d.parentDevice")
    .leftJoin("users as u", "u.id", "d.userIntId")
    .selectAll("d")
    .select([
      "p.productId as productId",
      "p.productName as productName",
      "p.cloudProtocol as cloudProtocol",
      "g.deviceName as gatewayName",
      "pd.deviceName as parentDeviceName",
      "u.username as createUser",
    ])
    .where("d.tenantId", "=", tenantId);
}

/** Which unique key a failed insert broke, for a DATA_EXISTED naming the field. */
function existedField(err: unknown): string {
  return /username/i.test(String((err as Error).message)) ? "deviceUsername" : "deviceID";
}

/** Checks that a referenced gateway/upper device exists in the caller's tenant. */
async function assertReference(db: Kysely<Database>, caller: Caller, field: "gateway" | "parentDevice", id: number | null | undefined, gatewayOnly: boolean) {
  if (id === null || id === undefined) return;
  const row = await db.selectFrom("devices").select(["id", "deviceType"]).where("tenantId", "=", caller.tenantId).where("id", "=", id).executeTakeFirst();
  if (!row || (gatewayOnly && row.deviceType !== 2)) throw fail.form({ [field]: `no such ${field === "gateway" ? "gateway" : "device"}` });
}

/**
 * Creates a device under one of the caller's products. deviceID,
 * deviceUsername and token are generated when omitted; deviceID must be unique
 * in the tenant and deviceUsername in the whole service (DATA_EXISTED).
 */
export async function createDevice(db: Kysely<Database>, caller: Caller, input: DeviceInput, now = Date.now()): Promise<Device> {
  const product = await getProductByProductId(db, caller, input.productId);
  if (!product) throw fail.form({ productID: "no such product" });
  const deviceType = input.deviceType ?? 1;
  const upLinkSystem = deviceType === 1 ? (input.upLinkSystem ?? 1) : null;
  if (upLinkSystem === 2 && input.gateway == null) throw fail.form({ gateway: "required when upLinkSystem is 2" });
  if (upLinkSystem === 3 && input.parentDevice == null) throw fail.form({ parentDevice: "required when upLinkSystem is 3" });
  await assertReference(db, caller, "gateway", upLinkSystem === 2 ? input.gateway : null, true);
  await assertReference(db, caller, "parentDevice", upLinkSystem === 3 ? input.parentDevice : null, false);
  const descriptive = Object.fromEntries(DESCRIPTIVE_FIELDS.map((k) => [k, input[k] ?? null]));
  try {
    const row = await db
      .insertInto("devices")
      .values({
        ...descriptive,
        tenantId: caller.tenantId,
        userIntId: caller.userIntId,
        productIntId: product.id,
        deviceId: input.deviceId ?? uuid(),
        deviceName: input.deviceName,
        deviceUsername: input.deviceUsername ?? uuid(),
        token: input.token ?? randomToken(),
        authType: input.authType ?? 1,
        blocked: 0,
        deviceType,
        upLinkSystem,
        gateway: upLinkSystem === 2 ? (input.gateway ?? null) : null,
        parentDevice: upLinkSystem === 3 ? (input.parentDevice ?? null) : null,
        deviceStatus: 0,
        gatewayProtocol: null,
        upLinkNetwork: null,
        upLinkProtocol: null,
        mac: null,
        clientIp: null,
        connectedAt: null,
        keepAlive: null,
        createAt: now,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return getDevice(db, caller, row.id);
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    if (isUniqueViolation(err)) throw fail.exists(existedField(err));
    throw err;
  }
}

/** Lists the caller's devices, newest first; `gateway`/`parentDevice` list children. */
export async function listDevices(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { gateway?: number | undefined; parentDevice?: number | undefined } = {},
): Promise<ListResult<Device>> {
  let q = selectDevices(db, caller.tenantId).where("d.deviceType", "!=", 2);
  if (filter.gateway !== undefined) q = q.where("d.gateway", "=", filter.gateway);
  if (filter.parentDevice !== undefined) q = q.where("d.parentDevice", "=", filter.parentDevice);
  return paginate(q, page, "d.id");
}

/** One device of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getDevice(db: Kysely<Database>, caller: Caller, id: number): Promise<Device> {
  const row = await selectDevices(db, caller.tenantId).where("d.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("device");
  return row;
}

/** Finds a device of the caller's tenant by its string deviceID. */
export async function getDeviceByDeviceId(db: Kysely<Database>, caller: Caller, deviceId: string): Promise<Device> {
  const row = await selectDevices(db, caller.tenantId).where("d.deviceId", "=", deviceId).executeTakeFirst();
  if (!row) throw fail.notFound("device");
  return row;
}
