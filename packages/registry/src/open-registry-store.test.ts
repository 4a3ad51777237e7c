import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { feedSignal } from "./northbound/events.js";
import { databaseErrors, uplinkBatchRows } from "./ops/registry-metrics.js";
import { openRegistryStore } from "./open-registry-store.js";
import type { UplinkRecord } from "./store/store.js";

const root = mkdtempSync(join(tmpdir(), "registry-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const uplink = (seq: number): UplinkRecord => ({
  msgKey: `adapter-1:${seq}`,
  tenantId: "t1",
  deviceIntId: 7,
  gatewayIntId: null,
  topic: "up",
  payload: new Uint8Array([seq]),
  ip: null,
  qos: 1,
  msgTime: 1_700_000_000_000 + seq,
});

describe("the registry's store", () => {
  it("appends the feed's uplink event in each batch's transaction and announces the commit", async () => {
    const store = await openRegistryStore({ dataDir: join(root, "feed") });
    try {
      const committed = once(feedSignal, "committed");
      await store.uplinks.write(uplink(1));
      await committed;
      const row = await store.db.selectFrom("deviceEvents").select("id").executeTakeFirstOrThrow();
      const events = await store.db.selectFrom("northboundEvents").select(["type", "uplinkIds"]).execute();
      expect(events).toEqual([{ type: "uplink", uplinkIds: JSON.stringify([Number(row.id)]) }]);
    } finally {
      await store.close();
    }
  });

  it("counts each uplink batch's rows and each failed statement in the registry's metrics", async () => {
    const store = await openRegistryStore({ dataDir: join(root, "metrics") });
    try {
      const batches = vi.spyOn(uplinkBatchRows(), "observe");
      const errors = vi.spyOn(databaseErrors(), "inc");
      await store.uplinks.write(uplink(1));
      expect(batches.mock.calls).toEqual([[1]]);
      const setting = { key: "k", value: "v" };
      await store.db.insertInto("settings").values(setting).execute();
      await expect(store.db.insertInto("settings").values(setting).execute()).rejects.toThrow();
      expect(errors).toHaveBeenCalledWith({ engine: "sqlite", kind: "constraint" });
    } finally {
      await store.close();
    }
  });
});
