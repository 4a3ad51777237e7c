import { createCipheriv } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { Database, LoraMulticastTable } from "../store/schema.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "../domain/caller.js";
import { getGroup } from "../domain/groups.js";

/** A group's LoRaWAN multicast session as stored (keys as 32 hex digits, McAddr 8 upper-case hex digits). */
export type LoraMulticast = Selectable<LoraMulticastTable>;

/**
 * What an operator provisions: McAddr and either the session keys or the group's McKey they derive from (TS005), and
 * optionally the next McFCntDown, data rate and frequency.
 */
export interface LoraMulticastInput {
  mcAddr: string;
  keys: { mcNwkSKey: string; mcAppSKey: string } | { mcKey: string };
  /** Next McFCntDown; kept (or 0 for a new session) when omitted. */
  fcntDown?: number | undefined;
  /** Region data rate index; null or omitted: the region's RX2 data rate. */
  dataRate?: number | null | undefined;
  /** Hz; null or omitted: the region's RX2 frequency. */
  frequency?: number | null | undefined;
}

/** cloudProtocol of LoRa products. */
const LORA = 4;

/**
 * Provisions (or replaces) the multicast session of a group of the caller's LoRa product. DATA_NOT_FOUND for an
 * unknown or foreign group; FORM_INVALID naming `productID` when the product is not LoRa, `mcAddr` when another
 * group holds that McAddr. Replacing a session keeps its McFCntDown unless one is given.
 */
export async function putLoraMulticast(
  db: Kysely<Database>,
  caller: Caller,
  groupIntId: number,
  input: LoraMulticastInput,
  now = Date.now(),
): Promise<LoraMulticast> {
  const group = await getGroup(db, caller, groupIntId);
  const product = await db
    .selectFrom("products")
    .select("cloudProtocol")
    .where("id", "=", group.productIntId)
    .executeTakeFirstOrThrow();
  if (product.cloudProtocol !== LORA) throw fail.form({ productID: "the group's product is not a LoRa product" });
  const keys = "mcKey" in input.keys ? multicastSessionKeys(input.keys.mcKey, input.mcAddr) : input.keys;
  const values = {
    mcAddr: input.mcAddr.toUpperCase(),
    nwkSessionKey: keys.mcNwkSKey.toUpperCase(),
    appSessionKey: keys.mcAppSKey.toUpperCase(),
    dataRate: input.dataRate ?? null,
    frequency: input.frequency ?? null,
  };
  try {
    const row = await db.transaction().execute(async (tx) => {
      const before = await tx
        .selectFrom("loraMulticast")
        .select("fcntDown")
        .where("groupIntId", "=", group.id)
        .executeTakeFirst();
      if (before)
        return tx
          .updateTable("loraMulticast")
          .set({ ...values, fcntDown: input.fcntDown ?? Number(before.fcntDown), updateAt: now })
          .where("groupIntId", "=", group.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      return tx
        .insertInto("loraMulticast")
        .values({
          ...values,
          groupIntId: group.id,
          tenantId: caller.tenantId,
          fcntDown: input.fcntDown ?? 0,
          createAt: now,
          updateAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return withNumbers(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw fail.form({ mcAddr: "is the McAddr of another group" });
    throw err;
  }
}

/**
 * The session keys of a multicast group from its McKey, as its devices derive them (LoRaWAN Remote Multicast Setup
 * TS005 §3.2): McAppSKey = aes128_encrypt(McKey, 0x01 | McAddr | pad16), McNwkSKey the same with 0x02, the McAddr
 * least significant byte first. Keys and McAddr as hex digits (32 and 8); answers upper-case hex.
 */
export function multicastSessionKeys(mcKey: string, mcAddr: string): { mcNwkSKey: string; mcAppSKey: string } {
  const derive = (prefix: number) => {
    const block = Buffer.alloc(16);
    block[0] = prefix;
    Buffer.from(mcAddr, "hex").reverse().copy(block, 1);
    const cipher = createCipheriv("aes-128-ecb", Buffer.from(mcKey, "hex"), null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()])
      .toString("hex")
      .toUpperCase();
  };
  return { mcAppSKey: derive(0x01), mcNwkSKey: derive(0x02) };
}

/** The multicast session of a group of the caller's tenant; DATA_NOT_FOUND when the group or its session is none. */
export async function getLoraMulticast(
  db: Kysely<Database>,
  caller: Caller,
  groupIntId: number,
): Promise<LoraMulticast> {
  const row = await db
    .selectFrom("loraMulticast")
    .selectAll()
    .where("groupIntId", "=", groupIntId)
    .where("tenantId", "=", caller.tenantId)
    .executeTakeFirst();
  if (!row) throw fail.notFound("loraMulticast");
  return withNumbers(row);
}

/** Ends a group's multicast session (its commands go as one unicast downlink per member again). */
export async function deleteLoraMulticast(db: Kysely<Database>, caller: Caller, groupIntId: number): Promise<void> {
  const r = await db
    .deleteFrom("loraMulticast")
    .where("groupIntId", "=", groupIntId)
    .where("tenantId", "=", caller.tenantId)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw fail.notFound("loraMulticast");
}

/**
 * Takes the next McFCntDown of a group's session, if it has one: answers the session with the counter to send with,
 * the stored one already incremented (so a counter is never used twice, even when the send then fails).
 */
export async function takeMulticastFrame(
  db: Kysely<Database>,
  groupIntId: number,
  now = Date.now(),
): Promise<LoraMulticast | undefined> {
  const row = await db
    .updateTable("loraMulticast")
    .set((eb) => ({ fcntDown: eb("fcntDown", "+", 1), updateAt: now }))
    .where("groupIntId", "=", groupIntId)
    .returningAll()
    .executeTakeFirst();
  return row ? { ...withNumbers(row), fcntDown: Number(row.fcntDown) - 1 } : undefined;
}

/** PostgreSQL answers bigint columns as strings. */
const withNumbers = (r: LoraMulticast): LoraMulticast => ({
  ...r,
  groupIntId: Number(r.groupIntId),
  fcntDown: Number(r.fcntDown),
  frequency: r.frequency === null ? null : Number(r.frequency),
  createAt: Number(r.createAt),
  updateAt: r.updateAt === null ? null : Number(r.updateAt),
});
