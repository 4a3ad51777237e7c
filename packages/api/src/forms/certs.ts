import { z } from "zod";
import type { Cert, IssuedCertRecord } from "@iot/registry";
import { f, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";

/** A file the console offers for download: PEM text and a file name. */
interface CertFile {
  content: string;
  fileName: string;
}

const file = z.object({ content: f.str, fileName: f.str });
const dateFields = { createAt: f.date, updateAt: f.date };

/** Certificate records: list row, edit answer, detail, and the create answer (PEM files). */
export const certRecords = {
  list: z.object({ createAt: f.date, enable: f.int, id: f.int, name: f.str }),
  write: z.object({ CN: f.str, cert: f.str, ...dateFields, enable: f.int, id: f.int, key: f.str, name: f.str }),
  detail: z.object({
    id: f.int,
    name: f.str,
    enable: f.int,
    CN: f.str,
    cert: f.str,
    /** Only for callers that may see secrets. */
    key: f.str.optional(),
    root: f.str,
    createUser: f.strN,
    ...dateFields,
  }),
  issued: z.object({
    CN: f.str,
    cert: file,
    key: file,
    root: file,
    ...dateFields,
    enable: f.int,
    id: f.int,
    name: f.str,
  }),
};

/** The file name stem of a certificate: its CN with characters unsafe in file names replaced by `_`. */
const stem = (cn: string) => cn.replace(/[^A-Za-z0-9._-]/g, "_");

const dates = (c: Cert) => ({ createAt: formatDate(c.createAt), updateAt: formatDate(c.updateAt) });

/**
 * Certificate record (same in both forms). The list row has only createAt,
 * enable, id, name; the edit answer adds CN, cert and key as PEM strings and
 * updateAt, but no root.
 */
export function cert<S extends "list" | "write">(c: Cert, shape: S): ShapeOf<typeof certRecords, S>;
export function cert(
  c: Cert,
  shape: "list" | "write",
): z.output<typeof certRecords.list> | z.output<typeof certRecords.write> {
  if (shape === "list") return { createAt: formatDate(c.createAt), enable: c.enable, id: c.id, name: c.name };
  return { CN: c.cn, cert: c.certPem, ...dates(c), enable: c.enable, id: c.id, key: c.keyPem, name: c.name };
}

/**
 * The detail: the record with CN, cert, key and the CA's root certificate as PEM texts, and its creator. Without
 * `secrets` (a viewer) the private key is left out.
 */
export function certDetail(c: Cert, rootPem: string, secrets: boolean): z.output<typeof certRecords.detail> {
  return {
    id: c.id,
    name: c.name,
    enable: c.enable,
    CN: c.cn,
    cert: c.certPem,
    ...(secrets ? { key: c.keyPem } : {}),
    root: rootPem,
    createUser: c.createUser,
    ...dates(c),
  };
}

/** The create answer: cert, key and root as downloadable files (`<CN>.crt`, `<CN>.key`, `root_ca.crt`). */
export function issuedCert(c: IssuedCertRecord): z.output<typeof certRecords.issued> {
  const files = (content: string, fileName: string): CertFile => ({ content, fileName });
  return {
    CN: c.cn,
    cert: files(c.certPem, `${stem(c.cn)}.crt`),
    key: files(c.keyPem, `${stem(c.cn)}.key`),
    root: files(c.rootPem, "root_ca.crt"),
    ...dates(c),
    enable: c.enable,
    id: c.id,
    name: c.name,
  };
}
