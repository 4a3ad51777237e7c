import type { Rec } from "../api.ts";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { Link } from "../router.tsx";
import { DATA_POINTS_OF_PRODUCT, PRODUCTS, YES_NO } from "./options.ts";

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

/** A link to the product a record of the data model belongs to. */
const productFilter = { name: "productID", label: t("product"), kind: "select" as const, optionsFrom: PRODUCTS };
const backToProduct = (r: Rec) => (r.productIntID ? <Link href={`/products/${r.productIntID}`}>→</Link> : null);

/** Data points of a product (listed and created on the product's page; edited here). */
export const dataPoints: Resource = {
  route: "/data_points",
  api: "/data_points",
  testId: "data-point",
  title: () => t("dataPoints"),
  newLabel: () => t("newDataPoint"),
  editLabel: () => t("editDataPoint"),
  creatable: false,
  list: () => ({
    filters: [productFilter],
    columns: [
      { label: t("name"), cell: (d) => d.dataPointName },
      { label: "dataPointID", cell: (d) => <code>{d.dataPointID}</code> },
      { label: t("product"), cell: (d) => d.productName },
      { label: t("type"), cell: (d) => d.pointDataTypeLabel ?? d.pointDataType },
      { label: t("unit"), cell: (d) => d.unitSymbol ?? d.unitName ?? "" },
      { label: t("direction"), cell: (d) => d.dataTransTypeLabel ?? d.dataTransType },
      { label: "", cell: backToProduct },
    ],
  }),
  fields: () => [
    { name: "dataPointName", label: t("name") },
    { name: "dataPointID", label: "dataPointID", createOnly: true },
    { name: "pointDataType", label: t("type"), kind: "select", options: POINT_TYPES },
    { name: "dataTransType", label: t("direction"), kind: "select", options: TRANS_TYPES() },
    { name: "unitSymbol", label: t("unit") },
    { name: "lowerLimit", label: t("lowerLimit"), kind: "number", when: (b) => Number(b.pointDataType) === 1 },
    { name: "upperLimit", label: t("upperLimit"), kind: "number", when: (b) => Number(b.pointDataType) === 1 },
    { name: "faultValue", label: t("faultValue"), when: (b) => Number(b.pointDataType) === 4 },
    { name: "detail", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ dataPointName: "", dataPointID: "", pointDataType: 1, dataTransType: 3 }),
};

/** Data streams of a product: the topics that carry its data points. */
export const dataStreams: Resource = {
  route: "/data_streams",
  api: "/data_streams",
  testId: "data-stream",
  title: () => t("dataStreams"),
  newLabel: () => t("newDataStream"),
  editLabel: () => t("editDataStream"),
  creatable: false,
  list: () => ({
    filters: [productFilter],
    columns: [
      { label: t("name"), cell: (s) => s.streamName },
      { label: t("topic"), cell: (s) => <code>{s.topic}</code> },
      { label: t("product"), cell: (s) => s.productName },
      { label: t("type"), cell: (s) => s.streamTypeLabel ?? s.streamType },
      { label: t("format"), cell: (s) => s.streamDataTypeLabel ?? s.streamDataType },
    ],
  }),
  fields: () => [
    { name: "streamName", label: t("name") },
    { name: "topic", label: t("topic") },
    { name: "streamType", label: t("type"), kind: "select", options: STREAM_TYPES() },
    {
      name: "streamDataType",
      label: t("format"),
      kind: "select",
      options: [
        [1, "JSON"],
        [2, "binary"],
      ],
    },
    { name: "dataPoints", label: t("dataPoints"), kind: "multiselect", optionsFrom: DATA_POINTS_OF_PRODUCT },
    { name: "detail", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ streamName: "", topic: "", streamType: 1, streamDataType: 1, dataPoints: [] }),
};

/** Metrics: a formula (`expressions`) or an aggregate of one data point, charted on the device page. */
export const metrics: Resource = {
  route: "/metrics",
  api: "/metrics",
  testId: "metric",
  title: () => t("metrics"),
  newLabel: () => t("newMetric"),
  editLabel: () => t("editMetric"),
  list: () => ({
    filters: [productFilter],
    columns: [
      { label: t("name"), cell: (m) => m.metricName },
      { label: t("type"), cell: (m) => m.metricTypeLabel ?? m.metricType },
      { label: t("dataPoints"), cell: (m) => m.dataPointName },
      { label: t("createAt"), cell: (m) => m.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "productID", label: t("product"), kind: "select", optionsFrom: PRODUCTS, createOnly: true, local: true },
    { name: "metricName", label: t("name") },
    { name: "dataPointIntID", label: t("dataPoint"), kind: "select", optionsFrom: DATA_POINTS_OF_PRODUCT },
    {
      name: "metricType",
      label: t("type"),
      kind: "select",
      options: [
        [1, t("formula")],
        [2, t("aggregate")],
      ],
    },
    { name: "expressions", label: t("expressions"), when: (b) => Number(b.metricType) !== 2, placeholder: "x * 2" },
    {
      name: "aggregateType",
      label: t("aggregateType"),
      kind: "select",
      when: (b) => Number(b.metricType) === 2,
      options: [
        [1, t("maximum")],
        [2, t("minimum")],
        [3, t("average")],
        [4, t("accumulated")],
      ],
    },
    {
      name: "chartType",
      label: t("chartType"),
      kind: "select",
      options: [
        [1, t("lineChart")],
        [2, t("barChart")],
      ],
    },
    { name: "isShow", label: t("isShow"), kind: "select", options: YES_NO() },
    { name: "remark", label: t("description"), kind: "textarea" },
  ],
  initial: () => ({ productID: "", metricName: "", metricType: 1, chartType: 1, isShow: 1, expressions: "" }),
};
