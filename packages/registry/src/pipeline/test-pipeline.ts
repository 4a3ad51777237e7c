/** Test support for the data pipeline's tests (not a test file): a product with streams, uplinks, the cursor. */
import type { Kysely } from "kysely";
import pino from "pino";
import { createDataPoint } from "../domain/data-points.js";
import { createDataStream } from "../domain/data-streams.js";
import { createDevice } from "../domain/devices.js";
import { createMetric } from "../domain/metrics.js";
import { createProduct } from "../domain/products.js";
import { twoTenants } from "../domain/test-tenants.js";
import { PIPELINE_CURSOR_KEY } from "../store/pipeline-cursor-key.js";
import type { Database } from "../store/schema.js";
import type { UplinkRecord } from "../store/store.js";
import type { EngineUnderTest } from "../store/test-engines.js";
import { DataPipeline } from "./data-pipeline.js";

/**
 * For tests: a QoS 1 uplink of the device on topic `telemetry` carrying `{"temp": temp}`, as an adapter hands it to
 * the store.
 */
export const telemetryUplink = (
  tenantId: string,
  deviceIntId: number,
  msgKey: string,
  temp: number,
  msgTime: number,
): UplinkRecord => ({
  msgKey,
  tenantId,
  deviceIntId,
  gatewayIntId: null,
  topic: "telemetry",
  payload: Buffer.from(JSON.stringify({ temp })),
  ip: null,
  qos: 1,
  msgTime,
});

/**
 * For tests: the pipeline's stored cursor and the newest stored uplink's id (equal once it went through them all).
 * Throws when either is missing, so that two missing values never compare equal.
 */
export async function cursorAndNewest(db: Kysely<Database>): Promise<{ cursor: number; newest: number }> {
  const newest = await db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirstOrThrow();
  const cursor = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", PIPELINE_CURSOR_KEY)
    .executeTakeFirstOrThrow();
  if (newest.id === null) throw new Error("no uplink is stored");
  return { cursor: Number(cursor.value), newest: Number(newest.id) };
}

/** When the tests' uplinks were received, epoch ms. */
export const T0 = Date.UTC(2026, 10, 1);

/**
 * A product "Meters" with points of every kind (limits on temp, a location point, a binary stream, a discarding
 * fault point), a formula metric, one device, and a started pipeline fed by the store's uplink writer; with a writer
 * of that device's uplinks and readers of its values and alerts.
 */
export async function pipelineSetup(engine: EngineUnderTest) {
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
export async function plainDevice({
  db,
  store,
  caller,
}: Pick<Awaited<ReturnType<typeof pipelineSetup>>, "db" | "store" | "caller">) {
  const plain = await createProduct(db, caller, { productName: "Plain", cloudProtocol: 1 });
  const other = await createDevice(db, caller, {
    productId: plain.productId,
    deviceName: "p1",
    upLinkSystem: 1,
    authType: 1,
  });
  return (n: number) => store.uplinks.write(telemetryUplink(caller.tenantId, other.id, `plain:${n}`, 99, T0 + n));
}
