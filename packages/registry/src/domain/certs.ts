import type { Kysely, Selectable } from "kysely";
import type { CertsTable, Database } from "../store/schema.js";
import { issueClientCert, serviceCa } from "../certs/ca.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { randomCode } from "./ids.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { deleteUnreferenced, heldBy } from "./delete-unreferenced.js";

/** A certificate row with its creator's name. */
export type Cert = Selectable<CertsTable> & { createUser: string | null };

/** A freshly issued certificate plus the CA certificate (PEM) that signed it. */
export type IssuedCertRecord = Cert & { rootPem: string };

/** Fields a caller sets on create. */
export interface CertInput {
  name: string;
  /** 1 usable, 0 not usable. */
  enable: number;
}

/** Fields an edit may change; everything else of a certificate is fixed. */
export interface CertEdit {
  name?: string | undefined;
  enable?: number | undefined;
}

/** Letters and digits after `<tenantID>:` in a certificate's CN. */
const CN_SUFFIX_LENGTH = 16;

function selectCerts(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("certs as c")
    .leftJoin("users as u", "u.id", "c.userIntId")
    .selectAll("c")
    .select("u.username as createUser")
    .where("c.tenantId", "=", tenantId);
}

/**
 * Issues a certificate for the caller's tenant, signed by the service CA,
 * with CN `<tenantID>:<16 random letters/digits>` (unique; retried on a clash),
 * and stores it with its key and fingerprint.
 */
export async function createCert(
  db: Kysely<Database>,
  caller: Caller,
  input: CertInput,
  now = Date.now(),
): Promise<IssuedCertRecord> {
  const ca = await serviceCa(db);
  for (let attempt = 0; ; attempt++) {
    const cn = `${caller.tenantId}:${randomCode(CN_SUFFIX_LENGTH)}`;
    const issued = await issueClientCert(ca, cn, now);
    try {
      const row = await db
        .insertInto("certs")
        .values({
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          name: input.name,
          enable: input.enable,
          cn,
          certPem: issued.certPem,
          keyPem: issued.keyPem,
          fingerprint: issued.fingerprint,
          createAt: now,
          updateAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...row, createUser: caller.username, rootPem: ca.certPem };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 5) throw err;
    }
  }
}

/** Lists the caller's certificates, newest first, optionally filtered by name (case-insensitive "contains"). */
export async function listCerts(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { nameLike?: string | undefined } = {},
): Promise<ListResult<Cert>> {
  let q = selectCerts(db, caller.tenantId);
  if (filter.nameLike) q = q.where(ilike("c.name", filter.nameLike));
  return paginate(q, page, "c.id", ["name", "updateAt"]);
}

/** One certificate of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getCert(db: Kysely<Database>, caller: Caller, id: number): Promise<Cert> {
  const row = await selectCerts(db, caller.tenantId).where("c.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("cert");
  return row;
}

/** The outcome of an edit: the record, and the devices whose sessions must end because it was disabled. */
export interface CertEditOutcome {
  cert: Cert;
  /** Devices bound to a certificate that went from enabled to disabled. */
  kick: number[];
}

/** Edits name and enable and sets updateAt. Disabling answers the bound devices, whose sessions must end. */
export async function updateCert(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: CertEdit,
  now = Date.now(),
): Promise<CertEditOutcome> {
  const cur = await getCert(db, caller, id);
  const set = {
    ...(edit.name !== undefined ? { name: edit.name } : {}),
    ...(edit.enable !== undefined ? { enable: edit.enable } : {}),
    updateAt: now,
  };
  await db.updateTable("certs").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  const cert = await getCert(db, caller, id);
  const disabled = cur.enable === 1 && cert.enable !== 1;
  return { cert, kick: disabled ? await devicesBoundToCert(db, id) : [] };
}

/** Ids of the devices bound to a certificate. */
export async function devicesBoundToCert(db: Kysely<Database>, certIntId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("deviceCerts")
    .select("deviceIntId")
    .where("certIntId", "=", certIntId)
    .orderBy("deviceIntId")
    .execute();
  return rows.map((r) => r.deviceIntId);
}

/**
 * Deletes certificates of the caller's tenant; foreign and unknown ids are
 * ignored. A certificate still bound to a device is not deleted:
 * REFERENCED_ERROR names `device` (and nothing is deleted).
 */
export async function deleteCerts(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "certs",
    referencedBy: [heldBy("device", "deviceCerts", "certIntId", "the certificate is still bound to a device")],
  });
}

/**
 * Binding check for devices: every id must be a certificate of the tenant,
 * else FORM_INVALID names `certs` with the refused ids. Call it inside the
 * transaction that writes the bindings (after the tenant lock).
 */
export async function assertCertsOfTenant(db: Kysely<Database>, tenantId: string, ids: number[]): Promise<void> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  // Ids that are not positive safe integers name no certificate (and are not sent to the database).
  const candidates = wanted.filter((id) => Number.isSafeInteger(id) && id > 0);
  const found = candidates.length
    ? await db.selectFrom("certs").select("id").where("tenantId", "=", tenantId).where("id", "in", candidates).execute()
    : [];
  const ok = new Set(found.map((r) => r.id));
  const refused = wanted.filter((id) => !ok.has(id));
  if (refused.length > 0) throw fail.form({ certs: `no such certificate: ${refused.join(", ")}` });
}
