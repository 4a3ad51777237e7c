import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { createDevice, deleteDevices, getDevice, type Device } from "./devices.js";
import { listDevices } from "./list-devices.js";
import { updateDevice, type EditOutcome } from "./update-device.js";
import type { DeviceEdit, DeviceInput } from "./device-input.js";
import type { ListResult, Page } from "./list.js";

/** A gateway: a device row of deviceType 2, with the number of devices under it. */
export type Gateway = Device & { deviceCount: number };

async function withCounts(db: Kysely<Database>, rows: Device[]): Promise<Gateway[]> {
  if (rows.length === 0) return [];
  const counts = await db
    .selectFrom("devices")
    .select(["gateway", sql<number>`count(*)`.as("n")])
    .where(
      "gateway",
      "in",
      rows.map((r) => r.id),
    )
    .groupBy("gateway")
    .execute();
  return rows.map((r) => ({ ...r, deviceCount: Number(counts.find((c) => c.gateway === r.id)?.n ?? 0) }));
}

/** Lists the caller's gateways, newest first, with their device counts. */
export async function listGateways(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  f: { gatewayNameLike?: string | undefined } = {},
): Promise<ListResult<Gateway>> {
  const r = await listDevices(db, caller, page, {
    includeGateways: true,
    deviceType: 2,
    deviceNameLike: f.gatewayNameLike,
  });
  return { ...r, items: await withCounts(db, r.items) };
}

/** One gateway of the caller's tenant; DATA_NOT_FOUND for devices that are not gateways too. */
export async function getGateway(db: Kysely<Database>, caller: Caller, id: number): Promise<Gateway> {
  const d = await getDevice(db, caller, id).catch(() => undefined);
  if (!d || d.deviceType !== 2) throw fail.notFound("gateway");
  return (await withCounts(db, [d]))[0]!;
}

/** Creates a gateway: credentials like a device's, plus gatewayProtocol, upLinkNetwork, upLinkProtocol, mac. */
export async function createGateway(
  db: Kysely<Database>,
  caller: Caller,
  input: Omit<DeviceInput, "deviceType" | "upLinkSystem" | "gateway" | "parentDevice">,
): Promise<Gateway> {
  const d = await createDevice(db, caller, { ...input, deviceType: 2 });
  return { ...d, deviceCount: 0 };
}

/** Edits a gateway with the same rules as a device edit. */
export async function updateGateway(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: DeviceEdit,
): Promise<EditOutcome & { device: Gateway }> {
  await getGateway(db, caller, id);
  const r = await updateDevice(db, caller, id, { ...edit, deviceType: 2 });
  return { ...r, device: (await withCounts(db, [r.device]))[0]! };
}

/** Deletes gateways (REFERENCED_ERROR while devices are under them); answers the ids deleted. */
export function deleteGateways(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<number[]> {
  return deleteDevices(db, caller, ids, "gateways");
}
