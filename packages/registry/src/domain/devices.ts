import type { Insertable, Kysely, RawBuilder, Selectable, Transaction } from "kysely";
import type { Database, DevicesTable } from "../store/schema.js";
import { fail, isUniqueViolation, RegistryError } from "../errors.js";
import type { Caller } from "./caller.js";
import { assertCertsOfTenant } from "./certs.js";
import { lockTenant } from "./locks.js";
import { deviceLimitError, deviceRoom } from "./tenant-quotas.js";
import { assertImeiFree, checkDeviceRules, type DeviceDraft } from "./device-rules.js";
import { randomToken, uuid } from "./ids.js";
import { loraKeys } from "../lora/lora-keys.js";
import { paginateIds, type ListResult, type Page } from "./list.js";
import { deviceSearchConditions } from "./device-search.js";
import { getProductByProductId } from "./products.js";
import { deleteUnreferenced } from "./delete-unreferenced.js";
import { subtractDeviceUplinks } from "../store/uplink-counts.js";

/** A device row with the names the API shows beside the ids, and its certificate bindings. */
export type Device = Selectable<DevicesTable> & {
  productId: string;
  productName: string;
  cloudProtocol: number;
  gatewayName: string | null;
  parentDeviceName: string | null;
  createUser: string | null;
  certs: number[];
};

/** Descriptive attributes a caller may set freely (no rule depends on them). */
export const DESCRIPTIVE_FIELDS = [
  "carrier",
  "physicalNetwork",
  "imei",
  "imsi",
  "autoSub",
  "modBusIndex",
  "latitude",
  "longitude",
  "location",
  "manufacturer",
  "serialNumber",
  "softVersion",
  "hardwareVersion",
  "description",
  "deviceConsoleIp",
  "deviceConsoleUsername",
  "deviceConsolePort",
  "metaData",
  "scopes",
  "gatewayProtocol",
  "upLinkNetwork",
  "upLinkProtocol",
  "mac",
  "channel",
] as const satisfies ReadonlyArray<keyof DevicesTable>;

type Descriptive = { [K in (typeof DESCRIPTIVE_FIELDS)[number]]?: DevicesTable[K] | undefined };

/** What a caller sends to create a device or gateway (already shape-validated by the API). */
export type DeviceInput = Descriptive & {
  productId: string;
  deviceName: string;
  /** 1 terminal, 2 gateway, 3 smartphone. */
  deviceType?: number | undefined;
  upLinkSystem?: number | null | undefined;
  gateway?: number | null | undefined;
  parentDevice?: number | null | undefined;
  authType?: number | undefined;
  deviceId?: string | undefined;
  deviceUsername?: string | undefined;
  token?: string | undefined;
  blocked?: number | undefined;
  lora?: Record<string, unknown> | null | undefined;
  /** Certificate ids an authType 2 device may connect with. */
  certs?: number[] | undefined;
};

/** An edit: any member of the input but the product, which is fixed. */
export type DeviceEdit = Partial<Omit<DeviceInput, "productId">> & { productId?: string | undefined };

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

/** Adds each device's certificate bindings (one query for the page). */
async function withCerts<T extends { id: number }>(
  db: Kysely<Database>,
  rows: T[],
): Promise<Array<T & { certs: number[] }>> {
  if (rows.length === 0) return [];
  const links = await db
    .selectFrom("deviceCerts")
    .select(["deviceIntId", "certIntId"])
    .where(
      "deviceIntId",
      "in",
      rows.map((r) => r.id),
    )
    .orderBy("certIntId")
    .execute();
  return rows.map((r) => ({ ...r, certs: links.filter((l) => l.deviceIntId === r.id).map((l) => l.certIntId) }));
}

/** Which unique key a failed write broke, for a DATA_EXISTED naming the field. */
const existedField = (err: unknown) => {
  const message = String((err as Error).message);
  return /imei/i.test(message) ? "IMEI" : /username/i.test(message) ? "deviceUsername" : "deviceID";
};

const parseLora = (text: string | null): Record<string, unknown> | null =>
  text ? (JSON.parse(text) as Record<string, unknown>) : null;

/** The `lora` members a network session is made from: a change to any of them (or to the deviceID) ends it. */
const LORA_IDENTITY = ["type", "appEUI", "appKey", "nwkSKey", "appSKey", "fcntUp", "fcntDown"] as const;

function loraIdentityChanged(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  idBefore: string,
  idAfter: string,
): boolean {
  if (!before && !after) return false;
  if (!before || !after || idBefore !== idAfter) return true;
  return LORA_IDENTITY.some((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** The rule checker's view of a device row plus changes. */
function draftOf(tenantId: string, protocol: number, v: Omit<DeviceDraft, "tenantId" | "protocol">): DeviceDraft {
  return { ...v, tenantId, protocol };
}

async function replaceCerts(
  tx: Transaction<Database>,
  deviceIntId: number,
  certs: number[] | undefined,
  now: number,
): Promise<void> {
  if (certs === undefined) return;
  // Only the device's own tenant's certificates may be bound (FORM_INVALID naming `certs`).
  const { tenantId } = await tx
    .selectFrom("devices")
    .select("tenantId")
    .where("id", "=", deviceIntId)
    .executeTakeFirstOrThrow();
  await assertCertsOfTenant(tx, tenantId, certs);
  await tx.deleteFrom("deviceCerts").where("deviceIntId", "=", deviceIntId).execute();
  const unique = [...new Set(certs)];
  if (unique.length)
    await tx
      .insertInto("deviceCerts")
      .values(unique.map((certIntId) => ({ deviceIntId, certIntId, createAt: now })))
      .execute();
}

/** Runs a device write, turning unique-key violations into DATA_EXISTED. */
async function writing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    if (isUniqueViolation(err)) throw fail.exists(existedField(err));
    throw err;
  }
}

/** What the creation rules need of a device's product. */
interface ProductRef {
  id: number;
  cloudProtocol: number;
}

/**
 * Checks one new device against every creation rule, inside the caller's transaction (which holds the tenant lock):
 * rules, certificates, a free IMEI, deviceID and deviceUsername. Answers the row to insert; writes nothing, so a
 * RegistryError leaves nothing behind.
 */
async function checkNewDevice(
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

/** Checks one new device (`checkNewDevice`) and inserts it with its certificate bindings; answers its id. */
async function insertDevice(
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

/** deviceUsernames (service-wide) and deviceIDs (in the tenant) already taken: a batch looks them up at once. */
interface TakenKeys {
  usernames: Set<string>;
  deviceIds: Set<string>;
}

/** The keys among `inputs` that the store already holds (chunked `in` lookups on the unique indexes). */
async function takenKeys(tx: Transaction<Database>, tenantId: string, inputs: DeviceInput[]): Promise<TakenKeys> {
  const keys: TakenKeys = { usernames: new Set(), deviceIds: new Set() };
  const usernames = inputs.flatMap((i) => (i.deviceUsername ? [i.deviceUsername] : []));
  const deviceIds = inputs.flatMap((i) => (i.deviceId ? [i.deviceId] : []));
  for (let i = 0; i < usernames.length; i += CHUNK) {
    const rows = await tx
      .selectFrom("devices")
      .select("deviceUsername")
      .where("deviceUsername", "in", usernames.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) keys.usernames.add(r.deviceUsername);
  }
  for (let i = 0; i < deviceIds.length; i += CHUNK) {
    const rows = await tx
      .selectFrom("devices")
      .select("deviceId")
      .where("tenantId", "=", tenantId)
      .where("deviceId", "in", deviceIds.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) keys.deviceIds.add(r.deviceId);
  }
  return keys;
}

/** Values per `in` lookup: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;
/** Devices per multi-row insert: some 45 columns each, well under both engines' bound-parameter limits. */
const INSERT_ROWS = 200;

/**
 * Creates a device (or, with deviceType 2, a gateway) under one of the
 * caller's products, after every creation rule. deviceID, deviceUsername and
 * token are generated when omitted (not for LoRa, whose deviceID is the
 * DevEUI or DevAddr).
 */
export async function createDevice(
  db: Kysely<Database>,
  caller: Caller,
  input: DeviceInput,
  now = Date.now(),
): Promise<Device> {
  const product = await getProductByProductId(db, caller, input.productId);
  if (!product) throw fail.form({ productID: "no such product" });
  const id = await writing(() =>
    db.transaction().execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      if ((await deviceRoom(tx, caller.tenantId)) < 1) throw await deviceLimitError(tx, caller.tenantId);
      return insertDevice(tx, caller, product, input, now);
    }),
  );
  return getDevice(db, caller, id);
}

/** One device of a batch: its new id, or why it was not created. */
export type BatchOutcome = { id: number } | { error: RegistryError };

/**
 * Creates many devices of the caller's tenant in one transaction, each after exactly the rules of `createDevice`
 * (the same code); a device that breaks a rule is left out with its RegistryError and the others are created, in
 * order, each checked against the store and the devices before it in the batch (modBusIndex, deviceID,
 * deviceUsername and IMEI stay unique). The deviceIDs and deviceUsernames given are looked up once for the batch.
 * Should a concurrent writer take a unique key between a check and its insert, the batch is redone one device at a
 * time. For bulk imports: about 500 devices a batch keep other writers' waits short.
 */
export async function createDevices(
  db: Kysely<Database>,
  caller: Caller,
  inputs: DeviceInput[],
  now = Date.now(),
): Promise<BatchOutcome[]> {
  const products = new Map<string, ProductRef | undefined>();
  for (const productId of new Set(inputs.map((i) => i.productId)))
    products.set(productId, await getProductByProductId(db, caller, productId));
  const one = async (run: () => Promise<number>): Promise<BatchOutcome> => {
    try {
      return { id: await run() };
    } catch (err) {
      if (err instanceof RegistryError) return { error: err };
      throw err;
    }
  };
  const noProduct = () => Promise.reject(fail.form({ productID: "no such product" }));
  try {
    return await db.transaction().execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      const known = await takenKeys(tx, caller.tenantId, inputs);
      // The tenant's maxDevices: devices past it are refused, each with the same error.
      let room = await deviceRoom(tx, caller.tenantId);
      const full = room < inputs.length ? await deviceLimitError(tx, caller.tenantId) : undefined;
      const out: BatchOutcome[] = [];
      // Devices whose checks read no other device go in multi-row inserts; one whose checks do (a gateway, an upper
      // device, a modBusIndex, an IMEI) or that binds certificates is inserted alone, after the buffer.
      const buffer: Array<{ at: number; row: Insertable<DevicesTable> }> = [];
      const flush = async () => {
        if (buffer.length === 0) return;
        const rows = await tx
          .insertInto("devices")
          .values(buffer.map((b) => b.row))
          .returning(["id", "deviceUsername"])
          .execute();
        const idOf = new Map(rows.map((r) => [r.deviceUsername, r.id]));
        for (const b of buffer) out[b.at] = { id: idOf.get(b.row.deviceUsername)! };
        buffer.length = 0;
      };
      for (const [at, input] of inputs.entries()) {
        const product = products.get(input.productId);
        const readsDevices =
          input.gateway != null || input.parentDevice != null || input.modBusIndex != null || !!input.imei;
        if (!product) out[at] = await one(noProduct);
        else if (room < 1) out[at] = { error: full! };
        else if (readsDevices || input.certs?.length) {
          await flush();
          out[at] = await one(() => insertDevice(tx, caller, product, input, now, known));
          if (!("error" in out[at])) room--;
        } else {
          const checked = await one(async () => {
            buffer.push({ at, row: await checkNewDevice(tx, caller, product, input, now, known) });
            return 0;
          });
          if ("error" in checked) out[at] = checked;
          else room--;
          if (buffer.length >= INSERT_ROWS) await flush();
        }
      }
      await flush();
      return out;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const out: BatchOutcome[] = [];
    for (const input of inputs) out.push(await one(async () => (await createDevice(db, caller, input, now)).id));
    return out;
  }
}

/** What an edit changed that must end live sessions (credentials or access). */
export interface EditOutcome {
  device: Device;
  /**
   * Set when blocked, token, deviceUsername, gateway, modBusIndex or IMEI changed: the device must reconnect (a
   * Modbus slave's session stands for its gateway and unit id, an LwM2M client's for its endpoint name, the IMEI).
   */
  revoke?: string;
}

/**
 * Edits a device of the caller's tenant: the merged record must pass every
 * creation rule again. The product and the terminal/gateway kind are fixed.
 */
export async function updateDevice(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: DeviceEdit,
  now = Date.now(),
): Promise<EditOutcome> {
  const cur = await getDevice(db, caller, id);
  if (edit.productId !== undefined && edit.productId !== cur.productId)
    throw fail.form({ productID: "cannot change after creation" });
  if (edit.deviceType !== undefined && (edit.deviceType === 2) !== (cur.deviceType === 2))
    throw fail.form({ deviceType: "a device cannot become a gateway or the other way round" });
  const pick = <K extends keyof DeviceEdit>(k: K, fallback: unknown) => (edit[k] !== undefined ? edit[k] : fallback);
  const merged = {
    deviceType: pick("deviceType", cur.deviceType) as number,
    upLinkSystem: pick("upLinkSystem", cur.upLinkSystem) as number | null,
    gateway: pick("gateway", cur.gateway) as number | null,
    parentDevice: pick("parentDevice", cur.parentDevice) as number | null,
    authType: pick("authType", cur.authType) as number,
    deviceId: pick("deviceId", cur.deviceId) as string,
    imei: (pick("imei", cur.imei) as string | null) || null,
    autoSub: pick("autoSub", cur.autoSub) as number | null,
    modBusIndex: pick("modBusIndex", cur.modBusIndex) as number | null,
    lora: pick("lora", parseLora(cur.lora)) as Record<string, unknown> | null,
  };
  const descriptive = Object.fromEntries(
    DESCRIPTIVE_FIELDS.flatMap((k) => (edit[k] !== undefined ? [[k, edit[k]]] : [])),
  );
  // New LoRa keys or identity end the network session: an OTAA device joins again, an ABP one starts over.
  const loraRekeyed = loraIdentityChanged(parseLora(cur.lora), merged.lora, cur.deviceId, merged.deviceId);
  const set = {
    ...descriptive,
    ...merged,
    lora: merged.lora ? JSON.stringify(merged.lora) : null,
    ...loraKeys(
      cur.cloudProtocol,
      merged.deviceType,
      merged.deviceId,
      merged.lora,
      loraRekeyed ? null : cur.loraDevAddr,
    ),
    ...(loraRekeyed ? { loraSession: null } : {}),
    ...(edit.deviceName !== undefined ? { deviceName: edit.deviceName } : {}),
    ...(edit.deviceUsername !== undefined ? { deviceUsername: edit.deviceUsername } : {}),
    ...(edit.token !== undefined ? { token: edit.token } : {}),
    ...(edit.blocked !== undefined ? { blocked: edit.blocked } : {}),
    updateAt: now,
  };
  await writing(() =>
    db.transaction().execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      await checkDeviceRules(
        tx,
        draftOf(caller.tenantId, cur.cloudProtocol, { ...merged, id, productIntId: cur.productIntId }),
      );
      await assertImeiFree(tx, merged.imei, id);
      await tx.updateTable("devices").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
      await replaceCerts(tx, id, edit.certs, now);
    }),
  );
  const device = await getDevice(db, caller, id);
  const revoke =
    device.blocked === 1 && cur.blocked !== 1
      ? "device blocked"
      : device.token !== cur.token
        ? "token changed"
        : device.deviceUsername !== cur.deviceUsername
          ? "username changed"
          : device.gateway !== cur.gateway || device.modBusIndex !== cur.modBusIndex
            ? "gateway or modBusIndex changed"
            : device.imei !== cur.imei
              ? "IMEI changed"
              : loraRekeyed
                ? "LoRa keys changed"
                : undefined;
  return revoke ? { device, revoke } : { device };
}

/**
 * Deletes devices of the caller's tenant (foreign and unknown ids are
 * ignored) with their group memberships, certificate and policy bindings and
 * proxy subscriptions and schedules; gateways too, unless `only` is "gateways" (then other
 * devices are ignored). A device that still has child devices, or a gateway
 * that still has devices, is not deleted: REFERENCED_ERROR names `device`.
 * Answers the ids deleted.
 */
export async function deleteDevices(
  db: Kysely<Database>,
  caller: Caller,
  ids: number[],
  only?: "gateways",
): Promise<number[]> {
  return deleteUnreferenced(db, caller, ids, {
    table: "devices",
    scope: only === "gateways" ? (eb) => eb("deviceType", "=", 2) : undefined,
    referencedBy: [
      {
        kind: "device",
        find: async (tx, mine) => {
          const child = await tx
            .selectFrom("devices")
            .select(["id", "gateway"])
            .where((eb) => eb.or([eb("parentDevice", "in", mine), eb("gateway", "in", mine)]))
            .where("id", "not in", mine)
            .limit(1)
            .executeTakeFirst();
          if (!child) return undefined;
          return child.gateway !== null && mine.includes(child.gateway)
            ? "the gateway still has devices"
            : "the device still has child devices";
        },
      },
    ],
    cascade: async (tx, mine) => {
      await tx.deleteFrom("groupDevices").where("deviceIntId", "in", mine).execute();
      await tx.deleteFrom("deviceCerts").where("deviceIntId", "in", mine).execute();
      await tx.deleteFrom("devicePolicies").where("deviceIntId", "in", mine).execute();
      await tx.deleteFrom("proxySubscriptions").where("deviceIntId", "in", mine).execute();
      // A deleted device's schedules end with it.
      await tx.deleteFrom("schedules").where("deviceIntId", "in", mine).execute();
      // Their uplinks stay until retention removes them, hidden from the lists: the tenant's count goes down now.
      await subtractDeviceUplinks(tx, caller.tenantId, mine);
    },
  });
}

/** Filters of the device list (Form 1: gateway, parentDevice; Form 2: the rest). */
export interface DeviceFilter {
  gateway?: number | undefined;
  parentDevice?: number | undefined;
  deviceNameLike?: string | undefined;
  deviceIdLike?: string | undefined;
  /** Form 1 code (1 terminal, 2 gateway, 3 smartphone). */
  deviceType?: number | undefined;
  /** A group's string groupID: only its members. */
  groupId?: string | undefined;
  /** A product's string productID. */
  productId?: string | undefined;
  /** Form 1 lists gateways under /gateways only; Form 2 lists them as deviceType 1. */
  includeGateways?: boolean | undefined;
}

/**
 * The caller's devices matching `f`, from the devices table alone (the joins come with the page's records);
 * `textSearch`: the conditions of `f.deviceNameLike` and `f.deviceIdLike` (deviceSearchConditions).
 */
function filteredDevices(
  db: Kysely<Database>,
  tenantId: string,
  f: DeviceFilter,
  textSearch: readonly RawBuilder<boolean>[],
) {
  let q = db.selectFrom("devices as d").where("d.tenantId", "=", tenantId);
  if (!f.includeGateways) q = q.where("d.deviceType", "!=", 2);
  if (f.gateway !== undefined) q = q.where("d.gateway", "=", f.gateway);
  if (f.parentDevice !== undefined) q = q.where("d.parentDevice", "=", f.parentDevice);
  for (const condition of textSearch) q = q.where(condition);
  if (f.deviceType !== undefined) q = q.where("d.deviceType", "=", f.deviceType);
  const productId = f.productId;
  if (productId !== undefined)
    q = q.where("d.productIntId", "in", (eb) =>
      eb.selectFrom("products").select("id").where("tenantId", "=", tenantId).where("productId", "=", productId),
    );
  const groupId = f.groupId;
  if (groupId !== undefined)
    q = q.where("d.id", "in", (eb) =>
      eb
        .selectFrom("groupDevices as gd")
        .innerJoin("groups as gr", "gr.id", "gd.groupIntId")
        .select("gd.deviceIntId")
        .where("gr.tenantId", "=", tenantId)
        .where("gr.groupId", "=", groupId),
    );
  return q;
}

/** Lists the caller's devices, newest first. */
export async function listDevices(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  f: DeviceFilter = {},
): Promise<ListResult<Device>> {
  const filtered = filteredDevices(db, caller.tenantId, f, await deviceSearchConditions(db, f, "d.id"));
  return paginateIds(filtered, page, "d.id", ["deviceName", "deviceStatus", "updateAt"], async (ids) =>
    withCerts(db, await selectDevices(db, caller.tenantId).where("d.id", "in", ids).execute()),
  );
}

/** One device (or gateway) of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getDevice(db: Kysely<Database>, caller: Caller, id: number): Promise<Device> {
  const row = await selectDevices(db, caller.tenantId).where("d.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("device");
  return (await withCerts(db, [row]))[0]!;
}

/** Finds a device of the caller's tenant by its string deviceID. */
export async function getDeviceByDeviceId(db: Kysely<Database>, caller: Caller, deviceId: string): Promise<Device> {
  const row = await selectDevices(db, caller.tenantId).where("d.deviceId", "=", deviceId).executeTakeFirst();
  if (!row) throw fail.notFound("device");
  return (await withCerts(db, [row]))[0]!;
}
