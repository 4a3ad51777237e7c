import type { Insertable, Kysely, Transaction } from "kysely";
import type { Database, DevicesTable } from "../store/schema.js";
import { fail, isUniqueViolation, RegistryError } from "../errors.js";
import type { Caller } from "./caller.js";
import { checkNewDevice, insertDevice, type ProductRef, type TakenKeys } from "./check-new-device.js";
import type { DeviceInput } from "./device-input.js";
import { createDevice } from "./devices.js";
import { lockTenant } from "./locks.js";
import { getProductByProductId } from "./products.js";
import { deviceLimitError, deviceRoom } from "./tenant-quotas.js";

/** Values per `in` lookup: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;
/** Devices per multi-row insert: some 45 columns each, well under both engines' bound-parameter limits. */
const INSERT_ROWS = 200;

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
