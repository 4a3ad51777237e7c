import type { KyselyPlugin } from "kysely";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createDataPoint } from "../domain/data-points.js";
import { createDataStream } from "../domain/data-streams.js";
import { createDevice } from "../domain/devices.js";
import { createMetric } from "../domain/metrics.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import { engines, type EngineUnderTest } from "../store/test-engines.js";
import { DataPipeline, nextEvents, PIPELINE_CURSOR_KEY } from "./data-pipeline.js";
import { readEvents } from "../northbound/events.js";
import { cursorAndNewest, telemetryUplink } from "./test-pipeline.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const T0 = Date.UTC(2026, 10, 1);

async function setup(engine: EngineUnderTest) {
  const { store, db, caller } = await twoTenants(engine);
  const product = await createProduct(db, caller, { productName: "Meters", cloudProtocol: 1 });
  const productRef = { productId: product.productId };
  const point = (dataPointId: string, pointDataType: number, extra: Record<string, unknown> = {}) =>
    createDataPoint(db, caller, {
      ...productRef,
      dataPointName: dataPointId,
      dataPointId,
      pointDataType,
      dataTransType: 1,
      ...extra,
    });
  const temp = await point("temp", 1, { upperLimit: 30, lowerLimit: -10, unitSymbol: "°C" });
  const hum = await point("hum", 1);
  const lon = await point("lon", 1, { isLocationType: 1, locationType: 1 });
  const level = await point("level", 16, { binarySize: 2 });
  const on = await point("on", 5);
  const where = await point("where", 6);
  const err = await point("err", 4, { faultValue: "1", isDiscard: 1 });
  await createDataStream(db, caller, {
    ...productRef,
    streamName: "telemetry",
    streamType: 1,
    streamDataType: 1,
    topic: "telemetry/#",
    dataPoints: [temp.id, hum.id, lon.id, where.id, err.id],
  });
  await createDataStream(db, caller, {
    ...productRef,
    streamName: "packed",
    streamType: 1,
    streamDataType: 2,
    topic: "bin",
    dataPoints: [level.id, on.id],
  });
  const fahrenheit = await createMetric(db, caller, {
    metricName: "F",
    dataPointIntId: temp.id,
    expressions: "x * 1.8 + 32",
  });
  const device = await createDevice(db, caller, { ...productRef, deviceName: "m1", upLinkSystem: 1, authType: 1 });
  const pipeline = new DataPipeline(db, pino({ level: "silent" }), { durability: store.durability });
  store.uplinks.onStored(pipeline.offer);
  await pipeline.start();
  let seq = 0;
  const uplink = (topic: string, payload: string | Buffer, msgTime: number, msgKey = `a:${++seq}`) =>
    store.uplinks.write({
      msgKey,
      tenantId: caller.tenantId,
      deviceIntId: device.id,
      gatewayIntId: null,
      topic,
      payload: typeof payload === "string" ? Buffer.from(payload) : payload,
      ip: null,
      qos: 1,
      msgTime,
    });
  const values = (dataPointIntId: number) =>
    db
      .selectFrom("pointValues")
      .select(["valueTime", "numValue", "textValue"])
      .where("deviceIntId", "=", device.id)
      .where("dataPointIntId", "=", dataPointIntId)
      .orderBy("valueTime")
      .execute()
      .then((rows) => rows.map((r) => [Number(r.valueTime), r.numValue ?? r.textValue]));
  const alerts = () =>
    db.selectFrom("historyAlerts").selectAll().where("deviceIntId", "=", device.id).orderBy("id").execute();
  return { db, store, caller, pipeline, uplink, values, alerts, device, temp, hum, lon, level, on, err, fahrenheit };
}

/** A device of a product without streams, and a writer of its uplinks (`n` makes the key and time). */
async function plainDevice({ db, store, caller }: Pick<Awaited<ReturnType<typeof setup>>, "db" | "store" | "caller">) {
  const plain = await createProduct(db, caller, { productName: "Plain", cloudProtocol: 1 });
  const other = await createDevice(db, caller, {
    productId: plain.productId,
    deviceName: "p1",
    upLinkSystem: 1,
    authType: 1,
  });
  return (n: number) => store.uplinks.write(telemetryUplink(caller.tenantId, other.id, `plain:${n}`, 99, T0 + n));
}

describe.each(engines)("data pipeline on $name", (engine) => {
  it("turns a JSON uplink into typed values, the latest value, a metric value and the device's position", async () => {
    const { db, pipeline, uplink, values, device, temp, hum, lon, fahrenheit } = await setup(engine);
    await uplink("telemetry/room", JSON.stringify({ temp: 20, hum: 41.5, lon: 13.4, other: 1 }), T0);
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([[T0, 20]]);
    expect(await values(hum.id)).toEqual([[T0, 41.5]]);
    const latest = await db
      .selectFrom("devicePointValues")
      .select(["dataPointIntId", "value"])
      .where("deviceIntId", "=", device.id)
      .orderBy("dataPointIntId")
      .execute();
    expect(latest).toEqual([
      { dataPointIntId: temp.id, value: "20" },
      { dataPointIntId: hum.id, value: "41.5" },
      { dataPointIntId: lon.id, value: "13.4" },
    ]);
    const metric = await db.selectFrom("metricValues").select(["metricIntId", "value"]).execute();
    expect(metric).toEqual([{ metricIntId: fahrenheit.id, value: 68 }]);
    const moved = await db.selectFrom("devices").select("longitude").where("id", "=", device.id).executeTakeFirst();
    expect(moved?.longitude).toBe(13.4);
    // A geolocation point moves both coordinates.
    await uplink("telemetry/room", JSON.stringify({ where: [2.35, 48.86] }), T0 + 1);
    await pipeline.flush();
    const placed = await db
      .selectFrom("devices")
      .select(["longitude", "latitude"])
      .where("id", "=", device.id)
      .executeTakeFirst();
    expect(placed).toEqual({ longitude: 2.35, latitude: 48.86 });
  });

  it("stores the values of a replayed uplink once", async () => {
    const { db, pipeline, uplink, values, temp } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 21 }), T0, "adapter-1:7");
    await pipeline.flush();
    await uplink("telemetry", JSON.stringify({ temp: 21 }), T0, "adapter-1:7");
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([[T0, 21]]);
    expect(await db.selectFrom("metricValues").select("value").execute()).toHaveLength(1);
  });

  it("decodes a binary stream and keeps an uplink matching no stream an event only", async () => {
    const { db, pipeline, uplink, values, level, on } = await setup(engine);
    await uplink("bin", Buffer.from([0x01, 0x02, 0x01]), T0);
    await uplink("elsewhere", JSON.stringify({ temp: 5 }), T0 + 1);
    await pipeline.flush();
    expect(await values(level.id)).toEqual([[T0, 258]]);
    expect(await values(on.id)).toEqual([[T0, 1]]);
    expect(await db.selectFrom("pointValues").select("id").execute()).toHaveLength(2);
  });

  it("goes past the uplinks of a product without streams and decodes the others of the same batch", async () => {
    const { db, store, caller, pipeline, uplink, values, temp } = await setup(engine);
    const plainUplink = await plainDevice({ db, store, caller });
    await Promise.all([plainUplink(0), uplink("telemetry", JSON.stringify({ temp: 7 }), T0 + 1), plainUplink(2)]);
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([[T0 + 1, 7]]);
    expect(await db.selectFrom("pointValues").select("deviceIntId").execute()).toEqual([
      { deviceIntId: expect.any(Number) },
    ]);
    expect(pipeline.stats.uplinks).toBe(1);
    // Past all three: a later uplink is decoded alone.
    await uplink("telemetry", JSON.stringify({ temp: 8 }), T0 + 3);
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([
      [T0 + 1, 7],
      [T0 + 3, 8],
    ]);
    expect(pipeline.stats.uplinks).toBe(2);
  });

  it("keeps only the fault value of an uplink whose discarding fault point reports its fault, and no metric", async () => {
    const { db, pipeline, uplink, values, temp, hum, err } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 20, hum: 40, err: 1 }), T0);
    await uplink("telemetry", JSON.stringify({ temp: 21, err: 0 }), T0 + 1);
    await pipeline.flush();
    expect(await values(err.id)).toEqual([
      [T0, 1],
      [T0 + 1, 0],
    ]);
    expect(await values(temp.id)).toEqual([[T0 + 1, 21]]);
    expect(await values(hum.id)).toEqual([]);
    const metrics = await db.selectFrom("metricValues").select("value").execute();
    expect(metrics).toHaveLength(1);
    expect(metrics[0]!.value).toBeCloseTo(21 * 1.8 + 32);
  });

  it("refuses a value of the wrong type for its point and keeps the others", async () => {
    const { pipeline, uplink, values, temp, hum } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: "warm", hum: 40 }), T0);
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([]);
    expect(await values(hum.id)).toEqual([[T0, 40]]);
    expect(pipeline.stats.refused).toBe(1);
  });

  it("opens an alert on a limit breach, counts repeats, and closes it when the value is back within", async () => {
    const { pipeline, uplink, alerts } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 35 }), T0);
    await uplink("telemetry", JSON.stringify({ temp: 36 }), T0 + 1000);
    await pipeline.flush();
    let open = await alerts();
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({
      rule: "upperLimit",
      alertTimes: 2,
      startTime: T0,
      endTime: null,
      alertSeverity: 2,
    });
    expect(JSON.parse(open[0]!.alertDetail!)).toMatchObject({ dataPointID: "temp", measured: 35, limit: 30 });
    expect(open[0]!.alertContent).toContain("30");
    await uplink("telemetry", JSON.stringify({ temp: 25 }), T0 + 2000);
    await pipeline.flush();
    open = await alerts();
    expect(open).toHaveLength(1);
    expect(Number(open[0]!.endTime)).toBe(T0 + 2000);
  });

  it("reports decoded values and alerts opened and closed as events, after their uplink's event", async () => {
    const { db, pipeline, uplink, alerts } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 35, hum: 50 }), T0);
    await uplink("telemetry", JSON.stringify({ temp: 25 }), T0 + 1000);
    await pipeline.flush();
    const [alert] = await alerts();
    const events = await readEvents(db, { afterId: 0, limit: 20 });
    const types = events.map((e) => e.type);
    // A lone uplink is committed at once, so the first may be decoded before the second is stored: each uplink's
    // derived events follow it, in order, whichever way the two interleave.
    const at = (type: string) => types.flatMap((t, i) => (t === type ? [i] : []));
    expect(types.filter((t) => t !== "uplink")).toEqual(["decoded", "alert_opened", "decoded", "alert_closed"]);
    const [firstUplink, secondUplink] = at("uplink");
    const [firstDecoded, secondDecoded] = at("decoded");
    expect(firstDecoded).toBeGreaterThan(firstUplink!);
    expect(secondDecoded).toBeGreaterThan(secondUplink!);
    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType("decoded")[0]!.data.values).toEqual([
      { dataPointID: "temp", value: 35 },
      { dataPointID: "hum", value: 50 },
    ]);
    expect(byType("alert_opened")[0]).toMatchObject({ time: T0, data: { alertId: alert!.id, rule: "upperLimit" } });
    expect(byType("alert_closed")[0]).toMatchObject({ time: T0 + 1000, data: { alertId: alert!.id } });
  });

  it("saves its cursor past uplinks that derive nothing only after cursorSaveMs or on close, and with values at once", async () => {
    const { db, store, caller, pipeline, uplink, values, temp } = await setup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    const saved = async () =>
      Number(
        (
          await db
            .selectFrom("settings")
            .select("value")
            .where("key", "=", PIPELINE_CURSOR_KEY)
            .executeTakeFirstOrThrow()
        ).value,
      );
    const newest = async () =>
      Number(
        (
          await db
            .selectFrom("deviceEvents")
            .select((eb) => eb.fn.max("id").as("id"))
            .executeTakeFirstOrThrow()
        ).id,
      );
    const lazy = new DataPipeline(db, pino({ level: "silent" }), { cursorSaveMs: 60_000 });
    await lazy.start();
    await lazy.flush();
    const before = await saved();
    await plainUplink(1);
    await lazy.flush();
    expect(lazy.stats.uplinks).toBe(0);
    expect(await saved()).toBe(before);
    // Values commit the cursor with them.
    await uplink("telemetry", JSON.stringify({ temp: 5 }), T0 + 2);
    await lazy.flush();
    expect(await values(temp.id)).toEqual([[T0 + 2, 5]]);
    expect(await saved()).toBe(await newest());
    await plainUplink(3);
    await lazy.flush();
    expect(await saved()).toBeLessThan(await newest());
    await lazy.close();
    expect(await saved()).toBe(await newest());
    // With no wait, every batch saves it.
    const eager = new DataPipeline(db, pino({ level: "silent" }), { cursorSaveMs: 0 });
    await eager.start();
    await plainUplink(4);
    await eager.flush();
    expect(await saved()).toBe(await newest());
    await eager.close();
  });

  it("goes past many uplinks of a product without streams reading rows per device, not per uplink", async () => {
    const { db, store, caller, pipeline } = await setup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    for (let n = 0; n < 100; n++) await plainUplink(n);
    let rowsRead = 0;
    const counting: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        rowsRead += a.result.rows.length;
        return a.result;
      },
    };
    const reader = new DataPipeline(db.withPlugin(counting), pino({ level: "silent" }));
    await reader.start();
    await reader.flush();
    await reader.close();
    // The cursor, the window summed up (one row for the one device), that device, its product's spec: a few rows.
    // Reading the window as rows answered one per uplink (100 and more).
    expect(rowsRead).toBeLessThan(20);
    const { cursor, newest } = await cursorAndNewest(db);
    expect(cursor).toBe(newest);
  });

  it("decodes the uplinks handed over at their commit without reading them back, and reads those stored otherwise", async () => {
    const { db, store, caller, pipeline, values, temp, device } = await setup(engine);
    await pipeline.close();
    let payloadsRead = 0;
    const counting: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        for (const row of a.result.rows) if ("payload" in row) payloadsRead++;
        return a.result;
      },
    };
    const reader = new DataPipeline(db.withPlugin(counting), pino({ level: "silent" }));
    const stop = store.uplinks.onStored(reader.offer);
    await reader.start();
    const write = (n: number) =>
      store.uplinks.write(telemetryUplink(caller.tenantId, device.id, `handed:${n}`, n, T0 + n));
    await Promise.all(Array.from({ length: 50 }, (_, n) => write(n)));
    await reader.flush();
    expect(payloadsRead).toBe(0);
    expect(await values(temp.id)).toHaveLength(50);
    // A row the writer did not store (an import, another node) is in the range: the whole range is read.
    await db
      .insertInto("deviceEvents")
      .values({
        tenantId: caller.tenantId,
        deviceIntId: device.id,
        gatewayIntId: null,
        topic: "telemetry",
        payload: Buffer.from(JSON.stringify({ temp: 100 })),
        ip: null,
        qos: 1,
        msgTime: T0 + 100,
        createAt: T0 + 100,
        msgKey: "imported:1",
      })
      .execute();
    await write(101);
    await reader.flush();
    expect(payloadsRead).toBe(2);
    expect((await values(temp.id)).slice(-2)).toEqual([
      [T0 + 100, 100],
      [T0 + 101, 101],
    ]);
    stop();
    await reader.close();
  });

  it("sums up the next events after a cursor by device, within the limit, in id order", async () => {
    const { db, store, caller, pipeline, uplink, device } = await setup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    await uplink("telemetry", "{}", T0 + 50);
    await plainUplink(10);
    await uplink("telemetry", "{}", T0 + 30);
    await plainUplink(20);
    await uplink("telemetry", "{}", T0 + 40);
    const ids = (await db.selectFrom("deviceEvents").select(["id", "deviceIntId"]).orderBy("id").execute()).map(
      (r) => ({ id: Number(r.id), deviceIntId: r.deviceIntId }),
    );
    expect(ids).toHaveLength(5);
    const plainId = ids[1]!.deviceIntId;

    const firstFour = await nextEvents(db, 0, 4);
    expect(firstFour && { ...firstFour, deviceIntIds: [...firstFour.deviceIntIds].sort() }).toEqual({
      deviceIntIds: [device.id, plainId].sort(),
      lastId: ids[3]!.id,
      count: 4,
      newestMsgTime: T0 + 50,
    });
    expect(await nextEvents(db, ids[3]!.id, 4)).toEqual({
      deviceIntIds: [device.id],
      lastId: ids[4]!.id,
      count: 1,
      newestMsgTime: T0 + 40,
    });
    expect(await nextEvents(db, ids[4]!.id, 4)).toBeUndefined();
  });

  it("commits a batch through the store's durability and goes on only once it is synced", async () => {
    const { db, store, pipeline, uplink, values, temp } = await setup(engine);
    await pipeline.close();
    const calls: string[] = [];
    let synced!: () => void;
    const durable = new DataPipeline(db, pino({ level: "silent" }), {
      durability: {
        transaction: (handle, work) => {
          calls.push("transaction");
          return store.durability.transaction(handle, work);
        },
        sync: () => {
          calls.push("sync");
          return new Promise<void>((resolve) => (synced = resolve));
        },
        close: () => Promise.resolve(),
      },
    });
    await uplink("telemetry", JSON.stringify({ temp: 5 }), T0);
    let flushed = false;
    const flushing = durable.flush().then(() => (flushed = true));
    await expect.poll(() => calls).toEqual(["transaction", "sync"]);
    // Committed and readable, but the batch is not done (nor its events announced) until the sync settles.
    expect(await values(temp.id)).toEqual([[T0, 5]]);
    await quietFor(50, "a flush that did not wait for the sync would settle within this");
    expect(flushed).toBe(false);
    synced();
    await flushing;
    expect(flushed).toBe(true);
  });

  it("goes on after a restart from the last uplink it went through, missing none", async () => {
    const { db, pipeline, uplink, values, temp } = await setup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 1 }), T0);
    await pipeline.flush();
    await pipeline.close();
    await uplink("telemetry", JSON.stringify({ temp: 2 }), T0 + 1);
    const restarted = new DataPipeline(db, pino({ level: "silent" }));
    await restarted.start();
    await restarted.flush();
    expect(await values(temp.id)).toEqual([
      [T0, 1],
      [T0 + 1, 2],
    ]);
  });
});
