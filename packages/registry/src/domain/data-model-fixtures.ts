/**
 * Test support (not a test file): a store with two tenants, products, and
 * helpers that insert data points and streams as rows, so tests of metrics,
 * resources, templates and device data do not depend on the data point API.
 */
import type { EngineUnderTest } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { insertDataPointRow, insertDataStreamRow } from "./data-model-rows.js";
import { createDevice } from "./devices.js";
import { createProduct, type Product } from "./products.js";

/** Opens a fresh store on `engine` with caller (tenant T), other (tenant "other", user eve) and a product of each. */
export async function dataModelFixture(engine: EngineUnderTest) {
  const { store, db, caller, other } = await twoTenants(engine);
  const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
  const product2 = await createProduct(db, caller, { productName: "Valve", cloudProtocol: 1 });
  const eveProduct = await createProduct(db, other, { productName: "Eve's", cloudProtocol: 1 });

  /** Inserts a data point row (default: numeric, reported and commanded). */
  const point = (
    p: Product,
    dataPointId: string,
    over: { pointDataType?: number; dataTransType?: number; enum?: string | null } = {},
    who = caller,
  ) => insertDataPointRow(db, who, p.id, dataPointId, over);
  /** Inserts a data stream row of a product. */
  const stream = (p: Product, topic: string, who = caller) => insertDataStreamRow(db, who, p.id, topic);
  /** Creates a device of a product. */
  const device = (name: string, p: Product = product, who = caller) =>
    createDevice(db, who, { productId: p.productId, deviceName: name, upLinkSystem: 1, authType: 1 });
  /** Stores the latest value of a data point of a device. */
  const storeValue = (deviceIntId: number, dataPointIntId: number, value: string | null, updateAt: number) =>
    db.insertInto("devicePointValues").values({ deviceIntId, dataPointIntId, value, updateAt }).execute();
  let samples = 0;
  /** Stores one value of the series as the data pipeline would (numeric when `value` is a number). */
  const storeSample = (deviceIntId: number, dataPointIntId: number, value: number | string, valueTime: number) =>
    db
      .insertInto("pointValues")
      .values({
        tenantId: caller.tenantId,
        deviceIntId,
        dataPointIntId,
        eventId: ++samples,
        valueTime,
        receivedAt: valueTime,
        numValue: typeof value === "number" ? value : null,
        textValue: typeof value === "string" ? value : null,
      })
      .execute();
  /** Stores one formula metric value as the data pipeline would. */
  const storeMetric = (deviceIntId: number, metricIntId: number, value: number, valueTime: number) =>
    db
      .insertInto("metricValues")
      .values({ tenantId: caller.tenantId, deviceIntId, metricIntId, eventId: ++samples, valueTime, value })
      .execute();
  return {
    store,
    db,
    caller,
    other,
    product,
    product2,
    eveProduct,
    point,
    stream,
    device,
    storeValue,
    storeSample,
    storeMetric,
  };
}
