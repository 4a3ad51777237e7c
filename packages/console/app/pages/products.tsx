import { useState } from "preact/hooks";
import { api, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { RecordForm } from "../form.tsx";
import { t } from "../i18n.ts";
import { ListPage } from "../list-page.tsx";
import type { Resource } from "../resource.tsx";
import { dataPoints, dataStreams, metrics } from "../resources/data-model.tsx";
import { Link } from "../router.tsx";
import { ErrorBox, Section, useLoad } from "../ui.tsx";

/** One part of a product's data model: its list (edit and delete per row) and a form adding to it. */
function ModelSection(props: { r: Resource; product: Rec; version: number; added: () => void }) {
  const { r, product, version } = props;
  const spec = r.list();
  return (
    <section class="card">
      <ListPage
        spec={{
          ...spec,
          filters: undefined,
          title: r.title(),
          api: r.api,
          testId: `${r.testId}-table`,
          initialFilters: { productID: String(product.productID), _limit: "100" },
          editHref: (rec) => `${r.route}/${rec.id}/edit`,
          deletable: true,
          embedded: true,
          version,
        }}
      />
      <RecordForm
        inline
        mode="create"
        key={version}
        title={r.newLabel()}
        testId={`${r.testId}-form`}
        fields={r.fields().filter((f) => f.name !== "productID")}
        initial={{ ...r.initial(), productID: product.productID }}
        extra={{ productIntID: product.id }}
        submit={async (s) => {
          await api("POST", r.api, s.body);
          props.added();
        }}
      />
    </section>
  );
}

/** A product: its record, data points, data streams and metrics, each listed, added, edited and deleted here. */
export function ProductPage({ id }: Record<string, string>) {
  const { data: p, error } = useLoad(() => api<Rec>("GET", `/products/${id}`), [id]);
  // Any addition reloads every section (a new data point is a choice of the stream and metric forms).
  const [version, setVersion] = useState(0);
  const added = () => setVersion((v) => v + 1);
  if (!p) return <ErrorBox error={error} />;
  return (
    <div>
      <h1>
        {t("product")}: {p.productName}
      </h1>
      <div class="toolbar">
        <Link href={`/products/${p.id}/edit`} class="button">
          {t("edit")}
        </Link>
        <Link href={`/devices?productID=${encodeURIComponent(p.productID)}`} class="button">
          {t("devices")} →
        </Link>
      </div>
      <Section title={t("details")}>
        <dl class="props">
          <dt>productID</dt>
          <dd>
            <code data-testid="productID">{p.productID}</code>
          </dd>
          {FORM === "1" ? (
            <>
              <dt>{t("protocol")}</dt>
              <dd>{p.cloudProtocolLabel}</dd>
            </>
          ) : null}
          <dt>{t("description")}</dt>
          <dd data-testid="product-description">{p.description}</dd>
          <dt>{t("createAt")}</dt>
          <dd>{p.createAt}</dd>
        </dl>
      </Section>
      {[dataPoints, dataStreams, metrics].map((r) => (
        <ModelSection key={r.api} r={r} product={p} version={version} added={added} />
      ))}
    </div>
  );
}
