import type { DatabaseStateChange } from "./ops/database-state.js";
import { databaseErrorLog, uplinkBatchRows, uplinkBatchSeconds, uplinkWriterQueue } from "./ops/registry-metrics.js";
import { appendUplinkEvents, eventsCommitted } from "./northbound/events.js";
import { openStore } from "./store/open-store.js";
import { settleAnswers } from "./router/command-answers.js";
import type { Store, StoreOptions } from "./store/store.js";
import type { StoreHooks } from "./store/store-hooks.js";

/** How to open the registry's store: the store's options, and who hears of the database's state. */
export interface RegistryStoreOptions extends Omit<StoreOptions, "hooks"> {
  /** Told when this store's database stops answering (disk full, connection lost) and when it answers again. */
  onDatabaseState?: ((change: DatabaseStateChange) => void) | undefined;
}

/**
 * What the registry's store calls in the registry's other layers: every failed statement counted in the metrics and
 * fed to the database's state (`onDatabaseState`), each uplink batch's northbound `uplink` events appended in its
 * transaction and announced after its commit, the commands its uplinks answer settled in it, and the uplink writer's
 * metrics.
 */
export function registryStoreHooks(onDatabaseState?: (change: DatabaseStateChange) => void): StoreHooks {
  return {
    queryLog: (engine) => databaseErrorLog(engine, onDatabaseState),
    uplinkEvents: { append: appendUplinkEvents, committed: eventsCommitted },
    uplinkAnswers: { settle: settleAnswers },
    uplinkMetrics: {
      enqueued: () => uplinkWriterQueue().inc(),
      dequeued: (count) => uplinkWriterQueue().dec(count),
      batch(rows) {
        const timer = uplinkBatchSeconds().startTimer();
        uplinkBatchRows().observe(rows);
        return timer;
      },
    },
  };
}

/**
 * Opens the store the options name (`openStore`: SQLite or PostgreSQL, migrated) with the registry's hooks: what the
 * central node and every user of the registry's store open, so its uplinks reach the northbound feed.
 */
export function openRegistryStore(options: RegistryStoreOptions): Promise<Store> {
  const { onDatabaseState, ...storeOptions } = options;
  return openStore({ ...storeOptions, hooks: registryStoreHooks(onDatabaseState) });
}
