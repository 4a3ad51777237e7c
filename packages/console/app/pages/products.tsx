import { useState } from "preact/hooks";
import { api, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { ChildList } from "../child-list.tsx";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { dataPoints, dataStreams, metrics } from "../resources/data-model.tsx";
import { Link } from "../router.tsx";
import { ErrorBox, Section, useLoad } from "../ui.tsx";

/** One part of a product's data model: its list (edit and delete per row) and a form adding to it. */
function ModelSection(props: { r: Resource; product: Rec; version: number; changed: () => void }) {
  const { r, product } = props;
  return (
    <ChildList
      version={props.version}
      changed={props.changed}
      spec={{
        ...r.list(),
        filters: undefined,
        title: r.title(),
        api: r.api,
        testId: `${r.testId}-table`,
        initialFilters: { productID: String(product.productID), _limit: "100" },
        editHref: (rec) => `${r.route}/${rec.id}/edit`,
      }}
      form={{
        title: r.newLabel(),
        testId: `${r.testId}-form`,
        fields: r.fields().filter((f) => f.name !== "productID"),
        initial: { ...r.initial(), productID: product.productID },
        // A metric belongs to its data point's product: POST /metrics takes no product (and refuses unknown members).
        extra: r === metrics ? undefined : { productIntID: product.id },
      }}
    />
  );
}

/** A product: its record, data points, data streams and metrics, each listed, added, edited and deleted here. */
export function ProductPage({ id }: Record<string, string>) {
  const { data: p, error } = useLoad(() => api<Rec>("GET", `/products/${id}`), [id]);
  // Any change reloads every section (a new data point is a choice of the stream and metric forms).
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
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
        <ModelSection key={r.api} r={r} product={p} version={version} changed={changed} />
      ))}
    </div>
  );
}
