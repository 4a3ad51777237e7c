import { z } from "zod";
import { createCert, deleteCerts, getCert, listCerts, serviceCa, updateCert } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { cert, certDetail, issuedCert } from "../forms/certs.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { certRecords } from "../forms/certs.js";

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
/** 1 usable, 0 not usable (digit strings allowed). */
const enable = codeField([0, 1]);

const createBody = z.strictObject({ name, enable });
/**
 * Edits carry the whole record; only name and enable change, read-only members (id, CN, PEM texts, dates) are dropped.
 */
const editBody = z.object({ name: name.optional(), enable: enable.optional() });

/**
 * Certificates issued by the service CA: list, detail, create, edit (disabling ends bound devices' sessions), delete.
 */
export function certRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Certificates")
    .get(
      "/certs",
      {
        summary: "List certificates",
        response: listOf(certRecords.list),
        query: listQuery({ name_like: z.string().optional() }),
      },
      async (c, { query }) =>
        list(await listCerts(db, c.get("caller"), pageFrom(query), { nameLike: query.name_like }), (x) =>
          cert(x, "list"),
        ),
    )
    .get(
      "/certs/:id",
      {
        summary: "Certificate detail with cert, key and root PEM texts (no key for viewers)",
        response: certRecords.detail,
      },
      async (c) => {
        const found = await getCert(db, c.get("caller"), idParam(c));
        return certDetail(found, (await serviceCa(db)).certPem, c.get("view").secrets);
      },
    )
    .post(
      "/certs",
      {
        summary: "Issue a certificate (ECDSA P-256, CN <tenantID>:<suffix>) signed by the service CA",
        body: createBody,
        response: certRecords.issued,
      },
      async (c, { body }) => issuedCert(await createCert(db, c.get("caller"), body)),
    )
    .put(
      "/certs/:id",
      {
        summary: "Edit a certificate's name and enable; disabling ends the sessions of its devices",
        body: editBody,
        response: certRecords.write,
      },
      async (c, { body }) => {
        const r = await updateCert(db, c.get("caller"), idParam(c), body);
        for (const deviceIntId of r.kick) deps.sessions.kick(deviceIntId, "certificate disabled");
        return cert(r.cert, "write");
      },
    )
    .delete(
      "/certs",
      { summary: "Delete certificates (REFERENCED_ERROR while bound to devices)", query: idsQuery },
      async (c, { query }) => {
        await deleteCerts(db, c.get("caller"), idsFrom(query));
      },
    ).app;
}
