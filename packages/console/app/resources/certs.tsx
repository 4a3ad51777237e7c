import { api, saveBlob, type Rec } from "../api.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { YES_NO } from "./options.ts";

const pem = (text: string) => new Blob([text], { type: "application/x-pem-file" });

/** Downloads a certificate's files (certificate, key, root) from its detail record. */
async function downloadCert(id: number): Promise<void> {
  const c = await api<Rec>("GET", `/certs/${id}`);
  const base = String(c.name || `cert-${id}`).replace(/[^\w.-]+/g, "_");
  if (c.cert) saveBlob(pem(String(c.cert)), `${base}.crt`);
  if (c.key) saveBlob(pem(String(c.key)), `${base}.key`);
  if (c.root) saveBlob(pem(String(c.root)), "root_ca.crt");
}

/** Certificates: the issued files download at creation and from the list. */
export const certs: Resource = {
  route: "/certs",
  api: "/certs",
  testId: "cert",
  title: () => t("certificates"),
  newLabel: () => t("newCert"),
  editLabel: () => t("editCert"),
  list: () => ({
    filters: [{ name: "name_like", label: t("searchByName") }],
    columns: [
      { label: t("name"), cell: (c) => c.name, sort: "name" },
      { label: t("enabled"), cell: (c) => (c.enable ? "✔" : "✘") },
      { label: t("createAt"), cell: (c) => c.createAt, sort: "createAt" },
    ],
    actions: (c) => (
      <button class="small" data-download={c.id} onClick={() => void downloadCert(Number(c.id)).catch(alert)}>
        {t("download")}
      </button>
    ),
  }),
  fields: () => [
    { name: "name", label: t("name") },
    { name: "enable", label: t("enabled"), kind: "select", options: YES_NO() },
  ],
  initial: () => ({ name: "", enable: 1 }),
  afterCreate: (c) => {
    for (const f of [c.cert, c.key, c.root]) if (f?.content) saveBlob(pem(String(f.content)), String(f.fileName));
    return undefined;
  },
};
