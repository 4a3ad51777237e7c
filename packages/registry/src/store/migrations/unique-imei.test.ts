import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isUniqueViolation } from "../../errors.js";
import type { Store } from "../store.js";
import { engines } from "../test-engines.js";
import { migrationsFor } from "./migrate.js";

const device = (store: Store, deviceId: string, imei: string | null) =>
  store.db
    .insertInto("devices")
    .values({
      tenantId: deviceId.startsWith("b") ? "t2" : "t1",
      userIntId: 1,
      productIntId: 1,
      deviceId,
      deviceName: deviceId,
      deviceUsername: `user-${deviceId}`,
      token: "tok",
      authType: 1,
      blocked: 0,
      deviceType: 1,
      deviceStatus: 0,
      imei,
      createAt: 0,
    })
    .returning("id")
    .executeTakeFirstOrThrow();

describe.each(engines)("migration 0005-unique-imei on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("clears empty IMEIs, refuses to run over shared ones naming them, then keeps IMEIs unique", async () => {
    const { store, place } = await engine.open();
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => ({ ...migrationsFor(engine.name) }) },
      ...(engine.name === "postgres" ? { migrationTableSchema: place } : {}),
    });
    expect((await migrator.migrateTo("0004-tasks")).error).toBeUndefined();
    await device(store, "a1", "");
    await device(store, "a2", "");
    await device(store, "a3", null);
    const first = await device(store, "a4", "490154203237518");
    const second = await device(store, "b1", "490154203237518");
    const refused = await migrator.migrateToLatest();
    expect(String(refused.error)).toContain(`490154203237518 (device ids ${first.id},${second.id})`);

    await store.db.updateTable("devices").set({ imei: "490154203237519" }).where("id", "=", second.id).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const empty = await sql<{ n: number | string }>`select count(*) as n from devices where imei = ''`.execute(
      store.db,
    );
    expect(Number(empty.rows[0]?.n)).toBe(0);
    // The index: another tenant's device may not take an IMEI either; devices without one are many.
    const clash = await device(store, "b2", "490154203237518").catch((e: unknown) => e);
    expect(isUniqueViolation(clash)).toBe(true);
    await device(store, "a5", null);
  });
});
