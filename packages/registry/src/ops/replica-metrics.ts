import { gauge } from "@iot/config";
import type { ReadReplicas } from "../store/read-replicas.js";

/** The read routings whose replicas the gauges show (held weakly: a closed store's routing stops counting). */
const routings = new Set<WeakRef<ReadReplicas>>();

/** Calls `each` with every live routing, forgetting the collected ones. */
function eachRouting(each: (r: ReadReplicas) => void): void {
  for (const ref of routings) {
    const r = ref.deref();
    if (r) each(r);
    else routings.delete(ref);
  }
}

/**
 * Makes the read replicas of `reads` (IOT_DATABASE_READ_URL) part of `iot_database_replica_lag_seconds`,
 * `iot_database_replica_lag_bytes` and `iot_database_replica_up`, labelled by replica (`host:port`) and
 * read at each scrape from the last lag poll. A replica that never answered has no lag series.
 */
export function trackReplicas(reads: ReadReplicas): void {
  routings.add(new WeakRef(reads));
  gauge(
    "iot_database_replica_lag_seconds",
    "How far each read replica is behind the primary at the last poll, seconds",
    ["replica"],
    function () {
      this.reset();
      eachRouting((r) => {
        for (const s of r.status()) if (s.lagSeconds !== undefined) this.set({ replica: s.name }, s.lagSeconds);
      });
    },
  );
  gauge(
    "iot_database_replica_lag_bytes",
    "WAL bytes each read replica has not replayed yet at the last poll",
    ["replica"],
    function () {
      this.reset();
      eachRouting((r) => {
        for (const s of r.status()) if (s.lagBytes !== undefined) this.set({ replica: s.name }, s.lagBytes);
      });
    },
  );
  gauge(
    "iot_database_replica_up",
    "1 while a read replica serves reads, 0 while it is skipped (unreachable, not a replica, or lagging past the bound)",
    ["replica"],
    function () {
      this.reset();
      eachRouting((r) => {
        for (const s of r.status()) this.set({ replica: s.name }, s.state === "up" ? 1 : 0);
      });
    },
  );
}
