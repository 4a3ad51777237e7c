import { spawnSync } from "node:child_process";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * The data pipeline end to end: real devices over MQTT (mosquitto-style client), HTTP (fetch) and CoAP (libcoap's
 * coap-client-notls) publish to products with data streams; what they send becomes original data, formula metric
 * values and alerts through the REST API.
 */
let t: TestFleet;
beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter", "http-adapter", "coap-adapter"] });
}, 90_000);
afterAll(async () => {
  await t?.close();
});

/** A product of `cloudProtocol` with a JSON stream on `telemetry/#` (temp with limits 0..30, hum) and a formula. */
async function meteredProduct(name: string, cloudProtocol: number) {
  const product = (await t.api("POST", "/products", { productName: name, cloudProtocol })).body;
  const point = async (dataPointID: string, extra: Record<string, unknown> = {}) => {
    const r = await t.api("POST", "/data_points", {
      productIntID: product.id,
      dataPointName: dataPointID,
      dataPointID,
      pointDataType: 1,
      dataTransType: 1,
      ...extra,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { id: number };
  };
  const temp = await point("temp", { upperLimit: 30, lowerLimit: 0, unitSymbol: "C" });
  const hum = await point("hum");
  const stream = await t.api("POST", "/data_streams", {
    productIntID: product.id,
    streamName: "telemetry",
    streamType: 1,
    streamDataType: 1,
    topic: "telemetry/#",
    dataPoints: [temp.id, hum.id],
  });
  expect(stream.status, JSON.stringify(stream.body)).toBe(201);
  const metric = await t.api("POST", "/metrics", {
    metricName: "Fahrenheit",
    dataPointIntID: temp.id,
    expressions: "x * 1.8 + 32",
  });
  expect(metric.status, JSON.stringify(metric.body)).toBe(201);
  return { product, temp, hum, metricId: metric.body.id as number };
}

const originalData = async (d: TestDevice) =>
  (await t.api("GET", `/original_data?deviceID=${d.deviceID}`)).body as {
    dataPointIntID: number;
    originalData: { time: string[]; value: number[] };
  }[];
const valuesOf = async (d: TestDevice, pointId: number) =>
  (await originalData(d)).find((o) => o.dataPointIntID === pointId)?.originalData.value ?? [];

describe("the data pipeline", () => {
  it("turns an MQTT device's JSON publishes into original data, a formula metric and an alert that opens and closes", async () => {
    const { product, temp, hum } = await meteredProduct("mqtt meters", 1);
    const d = await t.newDevice(product.productID, "mqtt-meter");
    const client = await mqtt.connectAsync(t.mqttUrl, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    const started = Date.now();
    await client.publishAsync("telemetry/room", JSON.stringify({ temp: 20, hum: 40 }), { qos: 1 });
    await client.publishAsync("telemetry/room", JSON.stringify({ temp: 35 }), { qos: 1 });
    await client.publishAsync("telemetry/room", JSON.stringify({ temp: 36 }), { qos: 1 });
    // Visible within a second of the uplink.
    await expect.poll(() => valuesOf(d, temp.id), { timeout: 1000, interval: 50 }).toEqual([20, 35, 36]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await valuesOf(d, hum.id)).toEqual([40]);
    const metrics = (await t.api("GET", `/metrics_data?deviceID=${d.deviceID}&metricType=1`)).body;
    expect(metrics[0].metricData.value.at(-1)).toBeCloseTo(96.8);
    const alertsOf = async () =>
      (
        (await t.api("GET", "/history_alerts?_limit=100")).body.items as { deviceID: string; endTime: string | null }[]
      ).filter((a) => a.deviceID === d.deviceID);
    let alerts = await alertsOf();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ alertTimes: 2, endTime: null, alertSeverity: 2 });
    await client.publishAsync("telemetry/room", JSON.stringify({ temp: 25 }), { qos: 1 });
    await expect.poll(async () => (await alertsOf())[0]?.endTime, { timeout: 2000 }).not.toBeNull();
    alerts = await alertsOf();
    expect(alerts).toHaveLength(1);
    await client.endAsync();
  });

  it("decodes a binary stream's points in order from an MQTT payload", async () => {
    const product = (await t.api("POST", "/products", { productName: "packed", cloudProtocol: 1 })).body;
    const level = await t.api("POST", "/data_points", {
      productIntID: product.id,
      dataPointName: "level",
      dataPointID: "level",
      pointDataType: 16,
      dataTransType: 1,
      binarySize: 2,
    });
    const ratio = await t.api("POST", "/data_points", {
      productIntID: product.id,
      dataPointName: "ratio",
      dataPointID: "ratio",
      pointDataType: 18,
      dataTransType: 1,
    });
    expect([level.status, ratio.status]).toEqual([201, 201]);
    const stream = await t.api("POST", "/data_streams", {
      productIntID: product.id,
      streamName: "packed",
      streamType: 1,
      streamDataType: 2,
      topic: "bin",
      dataPoints: [level.body.id, ratio.body.id],
    });
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);
    const d = await t.newDevice(product.productID, "packed-1");
    const client = await mqtt.connectAsync(t.mqttUrl, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    const payload = Buffer.alloc(10);
    payload.writeUInt16BE(1234, 0);
    payload.writeDoubleBE(0.25, 2);
    await client.publishAsync("bin", payload, { qos: 1 });
    await expect.poll(() => valuesOf(d, level.body.id), { timeout: 2000 }).toEqual([1234]);
    expect(await valuesOf(d, ratio.body.id)).toEqual([0.25]);
    await client.endAsync();
  });

  it("takes values from an HTTP device and a CoAP device the same way", async () => {
    const http = await meteredProduct("http meters", 5);
    const coap = await meteredProduct("coap meters", 2);
    const h = await t.newDevice(http.product.productID, "http-meter");
    const c = await t.newDevice(coap.product.productID, "coap-meter");
    const basic = `Basic ${Buffer.from(`${h.deviceUsername}:${h.token}`).toString("base64")}`;
    const posted = await fetch(`${t.httpUrl}/topics/telemetry/hall`, {
      method: "POST",
      headers: { authorization: basic },
      body: JSON.stringify({ temp: 18.5 }),
    });
    expect(posted.status).toBe(204);
    const r = spawnSync(
      "coap-client-notls",
      [
        "-m",
        "post",
        "-e",
        JSON.stringify({ temp: 17, hum: 55 }),
        "-O",
        `15,c=${c.deviceID}`,
        "-O",
        `15,u=${c.deviceUsername}`,
        "-O",
        `15,p=${c.token}`,
        `${t.coapUrl}/mqtt/telemetry/cellar`,
      ],
      { encoding: "utf8", timeout: 20_000 },
    );
    expect(r.stderr).toBe("");
    await expect.poll(() => valuesOf(h, http.temp.id), { timeout: 2000 }).toEqual([18.5]);
    await expect.poll(() => valuesOf(c, coap.temp.id), { timeout: 2000 }).toEqual([17]);
    expect(await valuesOf(c, coap.hum.id)).toEqual([55]);
  });
});
