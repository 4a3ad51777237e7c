import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createProduct } from "../domain/products.js";
import { createDevice } from "../domain/devices.js";
import { createDataPoint } from "../domain/data-points.js";
import { DataPipeline } from "../pipeline/data-pipeline.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const T0 = Date.UTC(2026, 10, 22);

describe.each(engines)("an LwM2M product's implicit stream on $name", (engine) => {
  it("stores the values of answers and notifications in the points named by their object paths", async () => {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "NB meters", cloudProtocol: 3 });
    const point = (dataPointId: string, pointDataType: number) =>
      createDataPoint(db, caller, {
        productId: product.productId,
        dataPointName: dataPointId,
        dataPointId,
        pointDataType,
        dataTransType: 1,
      });
    const temp = await point("3303/0/5700", 1);
    const maker = await point("3/0/0", 3);
    const meter = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "meter",
      upLinkSystem: 1,
      authType: 1,
      imei: "868333030000001",
      autoSub: 1,
    });
    const pipeline = new DataPipeline(db, pino({ level: "silent" }));
    await pipeline.start();
    const uplink = (topic: string, doc: unknown, n: number) =>
      db
        .insertInto("deviceEvents")
        .values({
          tenantId: caller.tenantId,
          deviceIntId: meter.id,
          gatewayIntId: null,
          topic,
          payload: Buffer.from(JSON.stringify(doc)),
          ip: null,
          qos: 1,
          msgTime: T0 + n,
          createAt: T0 + n,
          msgKey: `l:${n}`,
        })
        .execute();
    await uplink(
      "up/resp",
      { reqID: "1", msgType: "read", data: { code: "2.05", content: [{ path: "/3/0/0", value: "Acme" }] } },
      0,
    );
    await uplink(
      "up/notify",
      { reqID: "autoSub", msgType: "notify", data: { content: [{ path: "/3303/0/5700", value: 21.5 }] } },
      1,
    );
    await pipeline.flush();
    const values = await db
      .selectFrom("pointValues")
      .select(["dataPointIntId", "numValue", "textValue"])
      .where("deviceIntId", "=", meter.id)
      .orderBy("dataPointIntId")
      .execute();
    expect(values).toEqual([
      { dataPointIntId: temp.id, numValue: 21.5, textValue: null },
      { dataPointIntId: maker.id, numValue: null, textValue: "Acme" },
    ]);
    await pipeline.close();
  });
});
