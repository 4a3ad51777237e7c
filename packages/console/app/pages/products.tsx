import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useListState } from "../list-state.ts";
import { Link, navigate } from "../router.tsx";
import { SimpleForm } from "../simple-form.tsx";
import { ErrorBox, Field, Pager, Section, Table, errorsOf, useLoad } from "../ui.tsx";

/** cloudProtocol codes a Form 1 product may take. */
export const PROTOCOL_OPTIONS: [number, string][] = [
  [1, "MQTT"],
  [2, "CoAP"],
  [3, "LwM2M"],
  [4, "LoRa"],
  [5, "HTTP"],
  [6, "WebSocket"],
  [7, "Modbus"],
];

/** Data point types offered by the form (the common ones; the API takes every code of the spec). */
const POINT_TYPES: [number, string][] = [
  [1, "number"],
  [3, "string"],
  [5, "boolean"],
  [4, "fault"],
  [6, "geolocation"],
];
/** dataTransType: 1 report, 2 command, 3 both. */
const TRANS_TYPES = (): [number, string][] => [
  [1, t("report")],
  [2, t("command")],
  [3, `${t("report")} + ${t("command")}`],
];
/** streamType: 1 device report, 2 device command (gateway streams are not offered). */
const STREAM_TYPES = (): [number, string][] => [
  [1, t("report")],
  [2, t("command")],
];

/** Products, searchable by name (`productName_like`), paged and sortable. */
export function ProductList() {
  const list = useListState();
  const { data, error } = useLoad(() => api<Page<Rec>>("GET", `/products${list.query}`), [list.query]);
  return (
    <div>
      <h1>{t("products")}</h1>
      <div class="toolbar">
        <input
          type="search"
          name="productName_like"
          placeholder={t("searchByName")}
          value={list.filters.productName_like ?? ""}
          onInput={(e) => list.setFilter("productName_like", e.currentTarget.value)}
        />
        <Link href="/products/new" class="button primary">
          {t("newProduct")}
        </Link>
      </div>
      <ErrorBox error={error} />
      <Table
        testId="product-table"
        rows={data?.items}
        sort={list.sort}
        onSort={list.toggleSort}
        columns={[
          { label: t("name"), cell: (p) => <Link href={`/products/${p.id}`}>{p.productName}</Link> },
          { label: "productID", cell: (p) => <code>{p.productID}</code> },
          ...(FORM === "1" ? [{ label: t("protocol"), cell: (p: Rec) => p.cloudProtocolLabel }] : []),
          { label: t("deviceCount"), cell: (p) => (FORM === "2" ? (p.devices?.length ?? 0) : p.deviceCount) },
          { label: t("createAt"), cell: (p) => p.createAt, sort: "createAt" },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}

/** Creates a product (Form 1: name, protocol, description; Form 2: name and a required description). */
export function ProductNew() {
  const [body, setBody] = useState<Rec>({ productName: "", description: "", cloudProtocol: 1 });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (k: string, v: unknown) => setBody((b) => ({ ...b, [k]: v }));
  const submit = async (e: Event) => {
    e.preventDefault();
    const sent = FORM === "1" ? body : { productName: body.productName, description: body.description };
    try {
      const p = await api<Rec>("POST", "/products", sent);
      navigate(`/products/${p.id}`);
    } catch (err) {
      setErrors(errorsOf(err));
    }
  };
  return (
    <form class="card form" onSubmit={(e) => void submit(e)} data-testid="product-form">
      <h1>{t("newProduct")}</h1>
      <Field label={t("name")} name="productName" errors={errors}>
        <input name="productName" value={body.productName} onInput={(e) => set("productName", e.currentTarget.value)} />
      </Field>
      {FORM === "1" ? (
        <Field label={t("protocol")} name="cloudProtocol" errors={errors}>
          <select
            name="cloudProtocol"
            value={body.cloudProtocol}
            onChange={(e) => set("cloudProtocol", Number(e.currentTarget.value))}
          >
            {PROTOCOL_OPTIONS.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      <Field label={t("description")} name="description" errors={errors}>
        <textarea
          name="description"
          value={body.description}
          onInput={(e) => set("description", e.currentTarget.value)}
        />
      </Field>
      {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
      <div class="row">
        <button type="submit" class="primary">
          {t("create")}
        </button>
        <Link href="/products" class="button">
          {t("cancel")}
        </Link>
      </div>
    </form>
  );
}

/** A product: its record, data points, data streams and metrics. */
export function ProductPage({ id }: Record<string, string>) {
  const { data, error, reload } = useLoad(async () => {
    const p = await api<Rec>("GET", `/products/${id}`);
    const q = `?productID=${encodeURIComponent(p.productID)}&_limit=100`;
    const [points, streams, metrics] = await Promise.all([
      api<Page<Rec>>("GET", `/data_points${q}`),
      api<Page<Rec>>("GET", `/data_streams${q}`),
      api<Page<Rec>>("GET", `/metrics${q}`),
    ]);
    return { p, points: points.items, streams: streams.items, metrics: metrics.items };
  }, [id]);
  const p = data?.p;
  return (
    <div>
      <h1>
        {t("product")}: {p?.productName ?? "…"}
      </h1>
      <ErrorBox error={error} />
      {p ? (
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
            <dd>{p.description}</dd>
            <dt>{t("createAt")}</dt>
            <dd>{p.createAt}</dd>
          </dl>
          <p>
            <Link href={`/devices?productID=${encodeURIComponent(p.productID)}`}>{t("devices")} →</Link>
          </p>
        </Section>
      ) : null}
      <Section title={t("dataPoints")}>
        <Table
          rows={data?.points}
          columns={[
            { label: t("name"), cell: (d) => d.dataPointName },
            { label: "dataPointID", cell: (d) => <code>{d.dataPointID}</code> },
            { label: t("type"), cell: (d) => d.pointDataTypeLabel ?? d.pointDataType },
            { label: t("unit"), cell: (d) => d.unitSymbol ?? d.unitName ?? "" },
            { label: "", cell: (d) => d.dataTransTypeLabel ?? d.dataTransType },
          ]}
        />
        {p ? (
          <SimpleForm
            inline
            title={t("newDataPoint")}
            testId="data-point-form"
            initial={{ dataPointName: "", dataPointID: "", pointDataType: 1, dataTransType: 3, unitSymbol: "" }}
            fields={[
              { name: "dataPointName", label: t("name") },
              { name: "dataPointID", label: "dataPointID" },
              { name: "pointDataType", label: t("type"), kind: "select", options: POINT_TYPES },
              { name: "dataTransType", label: t("direction"), kind: "select", options: TRANS_TYPES() },
              { name: "unitSymbol", label: t("unit") },
            ]}
            submit={async (body) => {
              const sent: Rec = { ...body, productIntID: p.id };
              if (!sent.unitSymbol) delete sent.unitSymbol;
              await api("POST", "/data_points", sent);
              reload();
            }}
          />
        ) : null}
      </Section>
      <Section title={t("dataStreams")}>
        <Table
          rows={data?.streams}
          columns={[
            { label: t("name"), cell: (s) => s.streamName },
            { label: t("topic"), cell: (s) => <code>{s.topic}</code> },
            { label: t("type"), cell: (s) => s.streamTypeLabel ?? s.streamType },
            { label: "", cell: (s) => s.streamDataTypeLabel ?? s.streamDataType },
          ]}
        />
        {p && data ? (
          <SimpleForm
            inline
            key={data.points.length}
            title={t("newDataStream")}
            testId="data-stream-form"
            initial={{ streamName: "", topic: "", streamType: 1, streamDataType: 1, dataPoints: [] }}
            fields={[
              { name: "streamName", label: t("name") },
              { name: "topic", label: t("topic") },
              { name: "streamType", label: t("type"), kind: "select", options: STREAM_TYPES() },
              {
                name: "streamDataType",
                label: "",
                kind: "select",
                options: [
                  [1, "JSON"],
                  [2, "binary"],
                ],
              },
              {
                name: "dataPoints",
                label: t("dataPoints"),
                kind: "multiselect",
                options: data.points.map((d) => [Number(d.id), String(d.dataPointName)]),
              },
            ]}
            submit={async (body) => {
              await api("POST", "/data_streams", { ...body, productIntID: p.id });
              reload();
            }}
          />
        ) : null}
      </Section>
      <Section title={t("metrics")}>
        <Table
          rows={data?.metrics}
          columns={[
            { label: t("name"), cell: (m) => m.metricName },
            { label: t("type"), cell: (m) => m.metricTypeLabel ?? m.metricType },
            { label: t("dataPoints"), cell: (m) => m.dataPointName },
          ]}
        />
      </Section>
    </div>
  );
}
