import { useState } from "preact/hooks";
import { api, qs, type Page, type Rec } from "../api.ts";
import { SeriesChart } from "../chart.tsx";
import { t } from "../i18n.ts";
import { apiTime } from "../live-apply.ts";
import { useLive, useLiveEvents, useLiveState } from "../live.ts";
import { ErrorBox, Section, Table, useInterval, useLoad } from "../ui.tsx";

/** Seconds in each range the API's `time_unit` names, and the metric buckets charted over it. */
const RANGES = {
  hour: { seconds: 3600, label: "lastHour", bucket: "minute" },
  day: { seconds: 86_400, label: "lastDay", bucket: "hour" },
  week: { seconds: 604_800, label: "lastWeek", bucket: "day" },
} as const;
type Range = keyof typeof RANGES;

/** One data point's values as `GET /original_data` answers them. */
interface Series {
  dataPointIntID: number;
  dataPointName: string;
  originalData: { time: string[]; value: unknown[] };
}

/** `series` with `values` (decoded data point values of one uplink, by dataPointID) added at `time`. */
function appendValues(series: Series[], points: Rec[], values: Rec[], time: string): Series[] {
  const out = series.map((s) => ({
    ...s,
    originalData: { time: [...s.originalData.time], value: [...s.originalData.value] },
  }));
  for (const v of values) {
    const point = points.find((p) => p.dataPointID === v.dataPointID);
    if (!point) continue;
    let s = out.find((x) => x.dataPointIntID === point.id);
    if (!s)
      out.push(
        (s = { dataPointIntID: point.id, dataPointName: point.dataPointName, originalData: { time: [], value: [] } }),
      );
    s.originalData.time.push(time);
    s.originalData.value.push(v.value);
  }
  return out;
}

/**
 * Latest value per data point and a chart of each over the chosen range (`GET /original_data`), and the product's
 * metrics (`GET /metrics_data`). Values the stream reports decoded (`decoded` events of this device) are appended to
 * the charts in place; only without a stream are they read again every 5 s.
 */
export function DeviceData({ device }: { device: Rec }) {
  const [range, setRange] = useState<Range>("hour");
  const deviceID = String(device.deviceID);
  const points = useLoad(
    () =>
      api<Page<Rec>>("GET", `/data_points${qs({ productID: device.productID, _limit: 1000 })}`).then((r) => r.items),
    [device.productID],
  );
  const series = useLoad(
    () => api<Series[]>("GET", `/original_data${qs({ deviceID, time_unit: range })}`),
    [deviceID, range],
  );
  const to = Math.ceil(Date.now() / 1000);
  const from = to - RANGES[range].seconds;
  const metrics = useLoad(
    () =>
      api<Rec[]>(
        "GET",
        `/metrics_data${qs({ deviceID, time_unit: RANGES[range].bucket, start_time: apiTime(from * 1000), end_time: apiTime(to * 1000) })}`,
      ),
    [deviceID, range],
  );
  const live = useLiveState();
  useInterval(series.reload, live === "open" ? 0 : 5000);
  useInterval(metrics.reload, live === "open" ? 0 : 5000);
  useLiveEvents((e) => {
    if (e.type === "open") series.reload();
    if (e.type !== "decoded" || e.deviceID !== deviceID) return;
    const at = apiTime(Number(e.data.receivedAt ?? e.time));
    series.set((s) => appendValues(s ?? [], points.data ?? [], (e.data.values as Rec[]) ?? [], at));
  });
  // Metrics are computed by the service from the values: read again after a burst of new ones.
  useLive(metrics.reload, (e) => e.type === "decoded" && e.deviceID === deviceID);
  const shown = (series.data ?? []).filter((s) => s.originalData?.time?.length > 0);
  const charted = (metrics.data ?? []).filter((m) => m.metricData?.time?.length > 0);
  return (
    <Section
      title={t("latestValues")}
      actions={
        <select name="range" value={range} onChange={(e) => setRange(e.currentTarget.value as Range)}>
          {Object.entries(RANGES).map(([u, r]) => (
            <option key={u} value={u}>
              {t(r.label)}
            </option>
          ))}
        </select>
      }
    >
      <ErrorBox error={series.error ?? metrics.error} />
      <Table
        testId="latest-values"
        rows={series.data ? shown : undefined}
        columns={[
          { label: t("name"), cell: (s) => s.dataPointName },
          {
            label: t("value"),
            cell: (s) => <b data-latest={s.dataPointName}>{String(s.originalData.value.at(-1))}</b>,
          },
          { label: t("time"), cell: (s) => s.originalData.time.at(-1) },
        ]}
      />
      <div class="charts">
        {shown.map((s) => (
          <div key={s.dataPointIntID}>
            <h3>{s.dataPointName}</h3>
            <SeriesChart
              name={s.dataPointName}
              time={s.originalData.time}
              value={s.originalData.value}
              from={from}
              to={to}
            />
          </div>
        ))}
        {charted.map((m) => (
          <div key={`m${String(m.id)}`}>
            <h3>
              {t("metric")}: {m.metricName}
            </h3>
            <SeriesChart
              name={`metric-${String(m.metricName)}`}
              time={m.metricData.time}
              value={m.metricData.value}
              from={from}
              to={to}
            />
          </div>
        ))}
      </div>
    </Section>
  );
}
