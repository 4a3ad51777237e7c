import { pipelineFailures, pipelineLag, pipelineUplinks, pipelineValues } from "../ops/registry-metrics.js";
import { eventsCommitted } from "../northbound/events.js";

/**
 * Where the pipeline reports what it did: the node's metrics and the northbound wake-up by default; a pipeline on a
 * worker thread hands them to the main thread instead (pipeline-thread.ts).
 */
export interface PipelineObserver {
  /** A batch is about to read the next events: every uplink committed before this call is in what it reads. */
  reading(): void;
  /** A batch went through `uplinks` uplinks and stored `values` values; the newest is `lagSeconds` old. */
  batch(uplinks: number, values: number, lagSeconds: number): void;
  /** A batch failed (it is retried). */
  failed(): void;
  /** Feed events (decoded values, alerts) were committed. */
  committed(): void;
}

/** The node's own metrics and feed signal. */
export const NODE_OBSERVER: PipelineObserver = {
  reading() {},
  batch(uplinks, values, lagSeconds) {
    pipelineUplinks().inc(uplinks);
    pipelineValues().inc(values);
    pipelineLag().set(lagSeconds);
  },
  failed: () => pipelineFailures().inc(),
  committed: eventsCommitted,
};

/** What the pipeline did, for logs and tests. */
export interface PipelineStats {
  uplinks: number;
  values: number;
  refused: number;
}
