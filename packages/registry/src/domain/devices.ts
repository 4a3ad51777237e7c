import type { Kysely, Selectable } from "kysely";
import type { Database, DevicesTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { insertDevice } from "./check-new-device.js";
import { deleteUnreferenced } from "./delete-unreferenced.js";
import type { DeviceInput } from "./device-input.js";
import { deviceWrite } from "./device-write.js";
import { lockTenant } from "./locks.js";
import { getProductByProductId } from "./products.js";
import { deviceLimitError, deviceRoom } from "./tenant-quotas.js";
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

/** The tenant's device rows with the names beside their ids: one query shape for one device and for a page. */
export function selectDevices(db: Kysely<Database>, tenantId: string) {
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

/** Adds each device's certificate bindings (one query for the page, not one per device). */
export async function withCerts<T extends { id: number }>(
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
  const id = await deviceWrite(() =>
    db.transaction().execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      if ((await deviceRoom(tx, caller.tenantId)) < 1) throw await deviceLimitError(tx, caller.tenantId);
      return insertDevice(tx, caller, product, input, now);
    }),
  );
  return getDevice(db, caller, id);
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
      await tx.deleteFrom("mqttSessions").where("deviceIntId", "in", mine).execute();
      await tx.deleteFrom("retainedMessages").where("deviceIntId", "in", mine).execute();
      // A deleted device's schedules end with it.
      await tx.deleteFrom("schedules").where("deviceIntId", "in", mine).execute();
      // Their uplinks stay until retention removes them, hidden from the lists: the tenant's count goes down now.
      await subtractDeviceUplinks(tx, caller.tenantId, mine);
    },
  });
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
