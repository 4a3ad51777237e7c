import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** `YYYY-MM-DD HH:MM:SS` (UTC, the API's dates) → Unix seconds. */
function apiTimeToSeconds(s: string): number {
  return Date.parse(`${s.replace(" ", "T")}Z`) / 1000;
}

/**
 * A line chart of one series (`{time, value}` as the API answers it, non-numeric values skipped) over the window
 * `from`..`to` (Unix seconds), so a single value sits where it belongs in the window.
 */
export function SeriesChart(props: {
  name: string;
  time: string[];
  value: unknown[];
  from: number;
  to: number;
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs: number[] = [];
    const ys: number[] = [];
    props.time.forEach((tm, i) => {
      const v = Number(props.value[i]);
      if (Number.isFinite(v)) {
        xs.push(apiTimeToSeconds(tm));
        ys.push(v);
      }
    });
    const plot = new uPlot(
      {
        width: Math.max(300, el.clientWidth),
        height: props.height ?? 220,
        series: [{}, { label: props.name, stroke: "#2563eb", width: 2, points: { show: xs.length < 60 } }],
        scales: { x: { time: true, range: () => [props.from, props.to] } },
        axes: [{}, {}],
      },
      [xs, ys],
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(300, el.clientWidth), height: props.height ?? 220 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.destroy();
    };
  }, [props.name, props.time, props.value, props.from, props.to, props.height]);
  return <div class="chart" ref={box} data-testid={`chart-${props.name}`} data-points={props.time.length} />;
}
