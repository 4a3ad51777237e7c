import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { DataPipeline } from "../pipeline/data-pipeline.js";
import { MODBUS_UPLINK_TOPIC } from "./modbus-streams.js";
import { modbusFleet } from "./test-fixtures.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const T0 = Date.UTC(2026, 10, 22);

describe.each(engines)("a Modbus product's implicit streams on $name", (engine) => {
  it("decodes a slave's polled values on up/modbus into its data points with no data stream defined", async () => {
    const { db, caller, gateway, slave } = await modbusFleet(engine);
    const meter = await slave(2);
    const pipeline = new DataPipeline(db, pino({ level: "silent" }));
    await pipeline.start();
    await db
      .insertInto("deviceEvents")
      .values({
        tenantId: caller.tenantId,
        deviceIntId: meter.id,
        gatewayIntId: gateway.id,
        topic: MODBUS_UPLINK_TOPIC,
        payload: Buffer.from(JSON.stringify({ temp: 21.5, setpoint: 40, pump: true })),
        ip: null,
        qos: 1,
        msgTime: T0,
        createAt: T0,
        msgKey: "m:1",
      })
      .execute();
    await pipeline.flush();
    const values = await db
      .selectFrom("pointValues as v")
      .innerJoin("dataPoints as p", "p.id", "v.dataPointIntId")
      .select(["p.dataPointId", "v.numValue", "v.valueTime"])
      .where("v.deviceIntId", "=", meter.id)
      .orderBy("p.dataPointId")
      .execute();
    expect(values.map((v) => [v.dataPointId, v.numValue, Number(v.valueTime)])).toEqual([
      ["pump", 1, T0],
      ["setpoint", 40, T0],
      ["temp", 21.5, T0],
    ]);
    await pipeline.close();
  });
});
