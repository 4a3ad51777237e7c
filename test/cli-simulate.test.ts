/**
 * `iot simulate` for the protocols whose adapter acknowledges before storing, against a real fleet: LwM2M clients
 * (the project's client simulator over UDP) registering with the LwM2M adapter and notifying, and Modbus slaves (an
 * in-memory Modbus TCP slave) polled by a Modbus adapter the CLI runs for their gateway, and LoRaWAN ABP devices
 * heard by a simulated packet forwarder talking to the network server. Each run must see every message stored
 * through the API.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@iot/cli";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

describe("iot simulate for LwM2M, Modbus and LoRaWAN", () => {
  let t: TestFleet;
  const env = { ...process.env, IOT_CLI_CREDENTIALS: join(mkdtempSync(join(tmpdir(), "cli-sim-")), "creds.json") };

  /** Runs the CLI with --json; answers its exit code, its JSON answer and what it printed on stderr. */
  const iot = async (...argv: string[]) => {
    let out = "";
    let err = "";
    const code = await runCli(["--json", ...argv], { env, io: { out: (s) => (out += s), err: (s) => (err += s) } });
    return { code, err, body: out ? JSON.parse(out) : undefined };
  };
  /** The payloads of a device's stored uplinks on `topic`, oldest first. */
  const uplinks = async (id: number, topic: string) =>
    ((await t.api("GET", `/devices/${id}/events?_limit=1000`)).body.items as { topic: string; payload: string }[])
      .filter((e) => e.topic === topic)
      .map((e) => JSON.parse(e.payload) as Record<string, unknown>)
      .reverse();
  /** A device's stored values of the data point named `name`, as `/original_data` lists them. */
  const pointValues = async (deviceID: string, name: string) =>
    (
      (await t.api("GET", `/original_data?deviceID=${deviceID}`)).body as Array<{
        dataPointName: string;
        originalData: { value: number[] };
      }>
    ).find((s) => s.dataPointName === name)?.originalData.value ?? [];

  beforeAll(async () => {
    t = await startTestFleet(
      { IOT_LORA_UDP_PORT: "0", IOT_LORA_DEV_STATUS_EVERY: "0" },
      { adapters: ["lwm2m-adapter", "lorawan-adapter"] },
    );
    const login = await iot(
      "--url",
      reachable(t.fleet.central.urls.api!),
      "login",
      "-u",
      "admin",
      "-p",
      "e2e-admin-pass",
    );
    expect(login.code, login.err).toBe(0);
  }, 60_000);
  afterAll(() => t?.close());

  it("registers LwM2M clients and counts each notification once it is stored; a second run reuses the devices", async () => {
    const run = () =>
      iot(
        "simulate",
        "--protocol",
        "lwm2m",
        "--devices",
        "3",
        "--rate",
        "20",
        "--seconds",
        "2",
        "--target",
        t.lwm2mUrl,
      );
    const r = await run();
    expect(r.code, r.err).toBe(0);
    expect(r.body).toMatchObject({ protocol: "lwm2m", devices: 3, failed: 0 });
    expect(r.body.ok).toBe(r.body.sent);
    expect(r.body.ok).toBeGreaterThanOrEqual(30);
    expect(r.body.p50).toBeGreaterThan(0);
    expect(r.body.p99).toBeGreaterThanOrEqual(r.body.p50);

    const devices = (await iot("devices", "list", "--like", "sim-lwm2m-")).body.items as Array<{
      id: number;
      deviceID: string;
      deviceName: string;
      IMEI: string;
    }>;
    expect(devices).toHaveLength(3);
    expect(devices.every((d) => /^\d{15}$/.test(d.IMEI))).toBe(true);
    // Device 0 sent messages 0, 3, 6, …: each notified value was stored as an uplink and as a data point value.
    const d0 = devices.find((d) => d.deviceName === "sim-lwm2m-0")!;
    const notified = (await uplinks(d0.id, "up/notify")).flatMap(
      (u) => (u.data as { content?: { path: string; value: number }[] }).content ?? [],
    );
    const values = notified.filter((c) => c.path === "/3303/0/5700").map((c) => c.value);
    expect(values).toEqual(expect.arrayContaining([0, 3, 6, 9]));
    await expect
      .poll(() => pointValues(d0.deviceID, "Temperature"), { timeout: 5000 })
      .toEqual(expect.arrayContaining([0, 3, 6, 9]));

    const again = await run();
    expect(again.body).toMatchObject({ devices: 3, failed: 0 });
    expect((await iot("devices", "list", "--like", "sim-lwm2m-")).body.items).toHaveLength(3);
  });

  it(
    "polls Modbus slaves under one gateway and counts each register change once its value is stored",
    { timeout: 40_000 },
    async () => {
      const grpc = reachable(t.fleet.central.urls.grpc!).replace(/^[a-z]+:\/\//, "");
      const noToken = await iot(
        "simulate",
        "--protocol",
        "modbus",
        "--devices",
        "2",
        "--seconds",
        "1",
        "--target",
        grpc,
      );
      expect(noToken.code).toBe(1);
      expect(noToken.err).toMatch(/registry token/);
      const wrongToken = await iot(
        "simulate",
        "--protocol",
        "modbus",
        "--devices",
        "2",
        "--seconds",
        "1",
        "--target",
        grpc,
        "--registry-token",
        "not-the-token",
      );
      expect(wrongToken.code).toBe(1);
      expect(wrongToken.err).toMatch(/could not log in to the registry/);

      const r = await iot(
        "simulate",
        "--protocol",
        "modbus",
        "--devices",
        "4",
        "--rate",
        "20",
        "--seconds",
        "2",
        "--target",
        grpc,
        "--registry-token",
        t.fleet.registryToken,
      );
      expect(r.code, r.err).toBe(0);
      expect(r.body).toMatchObject({ protocol: "modbus", devices: 4, failed: 0 });
      expect(r.body.ok).toBe(r.body.sent);
      expect(r.body.ok).toBeGreaterThanOrEqual(30);
      expect(r.body.p50).toBeGreaterThan(0);

      const gateways = (await t.api("GET", "/gateways?gatewayName_like=sim-modbus")).body.items;
      expect(gateways).toHaveLength(1);
      const devices = (await iot("devices", "list", "--like", "sim-modbus-")).body.items as Array<{
        id: number;
        deviceID: string;
        modBusIndex: number;
      }>;
      expect(devices.map((d) => d.modBusIndex).sort()).toEqual([1, 2, 3, 4]);
      // Unit 1 took the values 1, 5, 9, …: the last one it took is stored, as an uplink and as a data point value.
      const unit1 = devices.find((d) => d.modBusIndex === 1)!;
      const last = Math.floor((r.body.sent - 1) / 4) * 4 + 1;
      const counters = (await uplinks(unit1.id, "up/modbus")).map((u) => u.counter);
      expect(counters).toContain(last);
      await expect.poll(() => pointValues(unit1.deviceID, "Counter"), { timeout: 5000 }).toContain(last);
    },
  );

  it("sends LoRaWAN uplinks through a simulated packet forwarder and counts each once its payload is stored", async () => {
    const lorawan = reachable(t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!.urls.lorawan!);
    const run = () =>
      iot("simulate", "--protocol", "lorawan", "--devices", "3", "--rate", "20", "--seconds", "2", "--target", lorawan);
    const r = await run();
    expect(r.code, r.err).toBe(0);
    expect(r.body).toMatchObject({ protocol: "lorawan", devices: 3, failed: 0 });
    expect(r.body.ok).toBe(r.body.sent);
    expect(r.body.ok).toBeGreaterThanOrEqual(30);
    expect(r.body.p50).toBeGreaterThan(0);

    const gateways = (await t.api("GET", "/gateways?gatewayName_like=sim-lorawan")).body.items;
    expect(gateways).toHaveLength(1);
    const devices = (await iot("devices", "list", "--like", "sim-lorawan-")).body.items as Array<{
      id: number;
      deviceID: string;
      deviceName: string;
    }>;
    expect(devices).toHaveLength(3);
    expect(devices.every((d) => /^26[0-9A-F]{6}$/.test(d.deviceID))).toBe(true);
    // Device 0 sent messages 1, 4, 7, …: each was decrypted by the network server and stored on up/1.
    const d0 = devices.find((d) => d.deviceName === "sim-lorawan-0")!;
    const seqs = (await uplinks(d0.id, "up/1")).map((u) => u.seq);
    expect(seqs).toEqual(expect.arrayContaining([1, 4, 7, 10]));

    // A second run reuses the devices: their counters start again at 0, which fcntCheck 2 takes as a restart.
    const again = await run();
    expect(again.code, again.err).toBe(0);
    expect(again.body).toMatchObject({ devices: 3, failed: 0 });
    expect(again.body.ok).toBe(again.body.sent);
    expect((await iot("devices", "list", "--like", "sim-lorawan-")).body.items).toHaveLength(3);
  });
});
