import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { readEvents } from "../northbound/events.js";
import { pipelineSetup, plainDevice, T0 } from "./test-pipeline.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("data pipeline on $name", (engine) => {
  it("turns a JSON uplink into typed values, the latest value, a metric value and the device's position", async () => {
    const { db, pipeline, uplink, values, device, temp, hum, lon, fahrenheit } = await pipelineSetup(engine);
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
    const { db, pipeline, uplink, values, temp } = await pipelineSetup(engine);
    await uplink("telemetry", JSON.stringify({ temp: 21 }), T0, "adapter-1:7");
    await pipeline.flush();
    await uplink("telemetry", JSON.stringify({ temp: 21 }), T0, "adapter-1:7");
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([[T0, 21]]);
    expect(await db.selectFrom("metricValues").select("value").execute()).toHaveLength(1);
  });

  it("decodes a binary stream and keeps an uplink matching no stream an event only", async () => {
    const { db, pipeline, uplink, values, level, on } = await pipelineSetup(engine);
    await uplink("bin", Buffer.from([0x01, 0x02, 0x01]), T0);
    await uplink("elsewhere", JSON.stringify({ temp: 5 }), T0 + 1);
    await pipeline.flush();
    expect(await values(level.id)).toEqual([[T0, 258]]);
    expect(await values(on.id)).toEqual([[T0, 1]]);
    expect(await db.selectFrom("pointValues").select("id").execute()).toHaveLength(2);
  });

  it("goes past the uplinks of a product without streams and decodes the others of the same batch", async () => {
    const { db, store, caller, pipeline, uplink, values, temp } = await pipelineSetup(engine);
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
    const { db, pipeline, uplink, values, temp, hum, err } = await pipelineSetup(engine);
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
    const { pipeline, uplink, values, temp, hum } = await pipelineSetup(engine);
    await uplink("telemetry", JSON.stringify({ temp: "warm", hum: 40 }), T0);
    await pipeline.flush();
    expect(await values(temp.id)).toEqual([]);
    expect(await values(hum.id)).toEqual([[T0, 40]]);
    expect(pipeline.stats.refused).toBe(1);
  });

  it("opens an alert on a limit breach, counts repeats, and closes it when the value is back within", async () => {
    const { pipeline, uplink, alerts } = await pipelineSetup(engine);
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
    const { db, pipeline, uplink, alerts } = await pipelineSetup(engine);
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
});
