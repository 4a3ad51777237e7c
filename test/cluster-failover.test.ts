import { describe, expect, it, vi } from "vitest";
import { postgresEngine } from "@iot/registry/test-engines";
import { reachable } from "../scripts/fleet.js";
import { apiOf, connectDevices, loadOn, storedOnce, useTwoNodeMqttFleet } from "./cluster-load.js";

const DEVICES = 8;
/** Unacknowledged QoS 1 publishes each device keeps in flight. */
const WINDOW = 8;

describe.skipIf(!postgresEngine)("two central nodes over one PostgreSQL, an MQTT adapter given both", () => {
  const started = useTwoNodeMqttFleet();

  it("moves the adapter to the other node within 5 s of a kill -9 under QoS 1 load, keeps the devices connected, and stores every PUBACKed message exactly once", async () => {
    const [first, second] = [await apiOf(started.fleet, 0), await apiOf(started.fleet, 1)];
    const productID = (await second("POST", "/products", { productName: "failover", cloudProtocol: 1 })).body.productID;
    const mqttUrl = reachable(started.fleet.adapters[0]!.urls.mqtt!);
    const { clients, closed } = await connectDevices(second, mqttUrl, productID, "d", DEVICES);
    const mqttAdapters = (health: any) => (health.adapters as Array<{ protocolLabel: string; sessions: number }>) ?? [];
    // The adapter starts on the first address it was given: the first node.
    // A session counts once its adapter reports it open on the stream, just after the CONNACK: wait for all.
    await expect
      .poll(async () => mqttAdapters((await first("GET", "/health")).body), { timeout: 5_000 })
      .toMatchObject([{ sessions: DEVICES }]);
    expect(mqttAdapters((await second("GET", "/health")).body)).toEqual([]);

    const load = loadOn(clients, WINDOW);
    try {
      await expect.poll(() => load.acked.length, { timeout: 10_000 }).toBeGreaterThan(20);
      started.fleet.centrals[0]!.child.kill("SIGKILL");
      const killedAt = performance.now();
      await vi.waitFor(
        async () => expect(mqttAdapters((await second("GET", "/health")).body)).toMatchObject([{ sessions: DEVICES }]),
        { timeout: 10_000, interval: 50 },
      );
      const movedAfterMs = performance.now() - killedAt;
      expect(movedAfterMs).toBeLessThan(5_000);
      console.info(`adapter re-attached to the other node ${Math.round(movedAfterMs)} ms after the kill -9`);
      // Uplinks were in flight when the node died: the adapter replayed them to the other node.
      const logs = started.fleet.adapters[0]!.errors.flatMap((l) =>
        l.startsWith("{") ? [JSON.parse(l)] : [],
      ) as Array<{
        msg?: string;
        pendingUplinks?: number;
      }>;
      expect(logs.find((l) => l.msg === "registry stream lost; reconnecting")?.pendingUplinks).toBeGreaterThan(0);
      const atMove = load.acked.length;
      await expect.poll(() => load.acked.length, { timeout: 5_000 }).toBeGreaterThan(atMove);
    } finally {
      await load.stop();
    }
    expect(load.failed).toEqual([]);
    expect(closed()).toBe(0);
    for (const c of clients) expect(c.connected).toBe(true);

    try {
      const { duplicated, lost, stored } = await storedOnce(started.db.url, started.dataDir, load.acked);
      expect({ duplicated, lost }).toEqual({ duplicated: [], lost: [] });
      expect(stored).toEqual(new Set(load.acked));
      // The devices stay online: the other node took their sessions over.
      const devices = (await second("GET", `/devices?productID=${productID}&_limit=100`)).body;
      expect(devices.items.map((d: { deviceStatus: number }) => d.deviceStatus)).toEqual(Array(DEVICES).fill(1));
    } finally {
      await Promise.all(clients.map((c) => c.endAsync()));
    }
  }, 90_000);
});
