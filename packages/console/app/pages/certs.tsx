import { useState } from "preact/hooks";
import { api, saveBlob, type Page, type Rec } from "../api.ts";
import { t } from "../i18n.ts";
import { useListState } from "../list-state.ts";
import { Link } from "../router.tsx";
import { SimpleForm } from "../simple-form.tsx";
import { ErrorBox, Pager, Table, useLoad } from "../ui.tsx";

const pem = (text: string) => new Blob([text], { type: "application/x-pem-file" });

/** Downloads a certificate's files (certificate, key, root) from its detail record. */
async function downloadCert(id: number): Promise<void> {
  const c = await api<Rec>("GET", `/certs/${id}`);
  const base = String(c.name || `cert-${id}`).replace(/[^\w.-]+/g, "_");
  if (c.cert) saveBlob(pem(String(c.cert)), `${base}.crt`);
  if (c.key) saveBlob(pem(String(c.key)), `${base}.key`);
  if (c.root) saveBlob(pem(String(c.root)), "root_ca.crt");
}

/** Certificates with a download of their files. */
export function CertList() {
  const list = useListState();
  const [error, setError] = useState<Error>();
  const { data, error: loadError } = useLoad(() => api<Page<Rec>>("GET", `/certs${list.query}`), [list.query]);
  return (
    <div>
      <h1>{t("certificates")}</h1>
      <div class="toolbar">
        <input
          type="search"
          name="name_like"
          placeholder={t("searchByName")}
          value={list.filters.name_like ?? ""}
          onInput={(e) => list.setFilter("name_like", e.currentTarget.value)}
        />
        <Link href="/certs/new" class="button primary">
          {t("newCert")}
        </Link>
      </div>
      <ErrorBox error={loadError ?? error} />
      <Table
        testId="cert-table"
        rows={data?.items}
        sort={list.sort}
        onSort={list.toggleSort}
        columns={[
          { label: t("name"), cell: (c) => c.name },
          { label: t("enabled"), cell: (c) => (c.enable ? "✔" : "✘") },
          { label: t("createAt"), cell: (c) => c.createAt, sort: "createAt" },
          {
            label: t("download"),
            cell: (c) => (
              <button class="small" onClick={() => void downloadCert(Number(c.id)).catch(setError)}>
                {t("download")}
              </button>
            ),
          },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}

/** Issues a certificate; its files (certificate, key, root) download at once. */
export function CertNew() {
  return (
    <SimpleForm
      title={t("newCert")}
      testId="cert-form"
      cancel="/certs"
      initial={{ name: "", enable: 1 }}
      fields={[
        { name: "name", label: t("name") },
        {
          name: "enable",
          label: t("enabled"),
          kind: "select",
          options: [
            [1, "1"],
            [0, "0"],
          ],
        },
      ]}
      submit={async (body) => {
        const c = await api<Rec>("POST", "/certs", body);
        for (const f of [c.cert, c.key, c.root]) if (f?.content) saveBlob(pem(String(f.content)), String(f.fileName));
        history.back();
      }}
    />
  );
}
