import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Kysely, Selectable } from "kysely";
import type { Database } from "../store/schema.js";
import type { FirmwaresTable } from "../store/schema-commands.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { uuid } from "./ids.js";
import { getProductByProductId } from "./products.js";

/** A firmware package's record; its bytes are a file of the firmware folder. */
export type Firmware = Selectable<FirmwaresTable> & { productId: string };

/** An upload: what describes the package, and its bytes. */
export interface FirmwareUpload {
  name: string;
  version: string;
  productId: string;
  /** When given, the bytes must hash to it (lowercase or uppercase hex). */
  sha256?: string | undefined;
  bytes: Uint8Array;
}

/** The cloudProtocol of LwM2M products: firmware packages belong to them. */
const LWM2M_PROTOCOL = 3;

/** The file of a package: `<dir>/<firmwareId>` (firmware ids are UUIDs, never paths). */
const fileOf = (dir: string, firmwareId: string) => join(dir, firmwareId);

const selectFirmwares = (db: Kysely<Database>, tenantId: string) =>
  db
    .selectFrom("firmwares as f")
    .innerJoin("products as p", "p.id", "f.productIntId")
    .selectAll("f")
    .select("p.productId")
    .where("f.tenantId", "=", tenantId);

/**
 * Stores an uploaded package of an LwM2M product of the caller's tenant: its file in `dir` first, then its row, so a
 * row always has its bytes. Its size and SHA-256 are computed here; FORM_INVALID names the field that is wrong (an
 * empty or too large package, a SHA-256 that does not match), DATA_EXISTED when the product has that name and
 * version already.
 */
export async function createFirmware(
  db: Kysely<Database>,
  dir: string,
  caller: Caller,
  upload: FirmwareUpload,
  maxBytes: number,
  now = Date.now(),
): Promise<Firmware> {
  if (upload.bytes.length === 0) throw fail.form({ package: "is empty" });
  if (upload.bytes.length > maxBytes) throw fail.form({ package: `at most ${maxBytes} bytes` });
  const product = await getProductByProductId(db, caller, upload.productId);
  if (!product) throw fail.form({ productID: "no such product" });
  if (product.cloudProtocol !== LWM2M_PROTOCOL) throw fail.form({ productID: "is not an LwM2M product" });
  const sha256 = createHash("sha256").update(upload.bytes).digest("hex");
  if (upload.sha256 !== undefined && upload.sha256.toLowerCase() !== sha256)
    throw fail.form({ sha256: `does not match the package (its SHA-256 is ${sha256})` });
  const taken = await db
    .selectFrom("firmwares")
    .select("id")
    .where("productIntId", "=", product.id)
    .where("firmwareName", "=", upload.name)
    .where("version", "=", upload.version)
    .executeTakeFirst();
  if (taken) throw fail.exists("version", "this product has a package of this name and version already");
  const firmwareId = uuid();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(fileOf(dir, firmwareId), upload.bytes, { mode: 0o600 });
  try {
    const row = await db
      .insertInto("firmwares")
      .values({
        tenantId: caller.tenantId,
        firmwareId,
        firmwareName: upload.name,
        version: upload.version,
        productIntId: product.id,
        size: upload.bytes.length,
        sha256,
        userIntId: caller.userIntId,
        createAt: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...row, productId: product.productId };
  } catch (err) {
    await rm(fileOf(dir, firmwareId), { force: true });
    throw err;
  }
}

/** The caller's tenant's packages, newest first; of one product when `productId` is given. */
export async function listFirmwares(db: Kysely<Database>, caller: Caller, productId?: string): Promise<Firmware[]> {
  let q = selectFirmwares(db, caller.tenantId);
  if (productId !== undefined) q = q.where("p.productId", "=", productId);
  return q.orderBy("f.id", "desc").execute();
}

/** One package of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getFirmware(db: Kysely<Database>, caller: Caller, firmwareId: string): Promise<Firmware> {
  const row = await selectFirmwares(db, caller.tenantId).where("f.firmwareId", "=", firmwareId).executeTakeFirst();
  if (!row) throw fail.notFound("firmware");
  return row;
}

/** Deletes a package of the caller's tenant: its row, then its file. */
export async function deleteFirmware(db: Kysely<Database>, dir: string, caller: Caller, firmwareId: string) {
  const firmware = await getFirmware(db, caller, firmwareId);
  await db.deleteFrom("firmwares").where("id", "=", firmware.id).execute();
  await rm(fileOf(dir, firmware.firmwareId), { force: true });
}

/** A package's bytes, checked against its SHA-256 (a file changed on disk is refused, never sent to devices). */
export async function readFirmwarePackage(dir: string, firmware: Firmware): Promise<Buffer> {
  const bytes = await readFile(fileOf(dir, firmware.firmwareId));
  if (createHash("sha256").update(bytes).digest("hex") !== firmware.sha256)
    throw new Error(`firmware ${firmware.firmwareId}: the stored file no longer matches its SHA-256`);
  return bytes;
}
