import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

/** Messages the device sends while the central node is killed and started again. */
const MESSAGES = 300;
/** QoS 1 publishes in flight at once. */
const WINDOW = 16;

describe("a central node crash under a publishing device", () => {
  let f: RestartableFleet;
  beforeAll(async () => {
    f = await startRestartableFleet({ IOT_MQTTS_PORT: "-1", IOT_MQTTSS_PORT: "-1", IOT_MQTT_WS_PORT: "-1" });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it("leaves every value stored exactly once", async () => {
    const product = (await f.api("POST", "/products", { productName: "crash", cloudProtocol: 1 })).body;
    const seq = (
      await f.api("POST", "/data_points", {
        productIntID: product.id,
        dataPointName: "seq",
        dataPointID: "seq",
        pointDataType: 1,
        dataTransType: 1,
      })
    ).body;
    await f.api("POST", "/data_streams", {
      productIntID: product.id,
      streamName: "up",
      streamType: 1,
      streamDataType: 1,
      topic: "up",
      dataPoints: [seq.id],
    });
    const d = (
      await f.api("POST", "/devices", {
        productID: product.productID,
        deviceName: "counter",
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const client = await mqtt.connectAsync(reachable(f.adapter.urls.mqtt!), {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
      keepalive: 60,
    });
    let next = 1;
    const lane = async () => {
      while (next <= MESSAGES) {
        const i = next++;
        await client.publishAsync("up", JSON.stringify({ seq: i, ts: Date.UTC(2026, 0, 1) + i }), { qos: 1 });
      }
    };
    const publishing = Promise.all(Array.from({ length: WINDOW }, lane));
    // Kill the central node (no graceful stop) once a third has gone out, then start it again.
    await vi.waitFor(() => expect(next).toBeGreaterThanOrEqual(MESSAGES / 3), { timeout: 60_000, interval: 5 });
    await killHard(f.central);
    await f.startCentral();
    await publishing;
    const window = "start_time=2026-01-01 00:00:00&end_time=2026-01-02 00:00:00";
    const stored = async () =>
      ((await f.api("GET", `/original_data?deviceID=${d.deviceID}&${window}`)).body[0]?.originalData.value ??
        []) as number[];
    await expect.poll(async () => (await stored()).length, { timeout: 10_000 }).toBe(MESSAGES);
    const values = await stored();
    expect(values).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
    await client.endAsync();
  }, 120_000);
});
