/**
 * The operator CLI against a real fleet: `runCli` in process for most commands (its output captured), and once as
 * the `pnpm iot` entry point in its own process.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@iot/cli";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

const run = promisify(execFile);

describe("the iot CLI", () => {
  let t: TestFleet;
  let apiUrl: string;
  const env = { ...process.env, IOT_CLI_CREDENTIALS: join(mkdtempSync(join(tmpdir(), "cli-e2e-")), "creds.json") };

  /** Runs the CLI; answers its exit code and what it printed. */
  const iot = async (...argv: string[]) => {
    let out = "";
    let err = "";
    const code = await runCli(argv, { env, io: { out: (s) => (out += s), err: (s) => (err += s) } });
    return { code, out, err };
  };
  const json = async (...argv: string[]) => {
    const r = await iot("--json", ...argv);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out);
  };

  beforeAll(async () => {
    t = await startTestFleet({}, { adapters: ["mqtt-adapter", "http-adapter", "coap-adapter"] });
    apiUrl = reachable(t.fleet.central.urls.api!);
  }, 60_000);
  afterAll(() => t?.close());

  it("logs in, keeping the token in a file only the user can read; a wrong password fails with the API's message", async () => {
    const bad = await iot("--url", apiUrl, "login", "-u", "admin", "-p", "wrong-password");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^AUTH_FAILED/);
    const ok = await iot("--url", apiUrl, "login", "-u", "admin", "-p", "e2e-admin-pass");
    expect(ok.code, ok.err).toBe(0);
    expect(statSync(env.IOT_CLI_CREDENTIALS).mode & 0o777).toBe(0o600);
  });

  it("creates, lists, shows and deletes products and devices, with tables or --json", async () => {
    const product = await json("products", "create", "productName=Thermometers", "cloudProtocol=5");
    expect(product).toMatchObject({ productName: "Thermometers", cloudProtocol: 5 });
    const device = await json(
      "devices",
      "create",
      `productID=${product.productID}`,
      "deviceName=cli-1",
      "upLinkSystem=1",
      "authType=1",
    );
    expect(device).toMatchObject({ deviceName: "cli-1" });
    const table = await iot("devices", "list", "--like", "cli-");
    expect(table.code, table.err).toBe(0);
    expect(table.out.split("\n")[0]).toMatch(/^id\s+deviceID\s+deviceName/);
    expect(table.out).toContain(device.deviceID);
    expect(table.out).toMatch(/page 1, 1 of 1/);
    expect((await json("devices", "get", String(device.id))).deviceID).toBe(device.deviceID);
    expect((await json("products", "list")).items.map((p: { productID: string }) => p.productID)).toContain(
      product.productID,
    );
    const invalid = await iot("devices", "create", `productID=${product.productID}`);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toMatch(/^FORM_INVALID: .*deviceName: /);
    expect((await iot("devices", "delete", String(device.id))).code).toBe(0);
    const gone = await iot("devices", "get", String(device.id));
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/^DATA_NOT_FOUND/);
  });

  it("publishes a command and shows uplinks, following new ones as they arrive", async () => {
    const product = await json("products", "create", "productName=Sensors", "cloudProtocol=5");
    const d = await t.newDevice(product.productID, "cli-events");
    expect(await json("publish", d.deviceID, "hello")).toMatchObject({ publishStatus: "1" });
    const send = (n: number) =>
      fetch(`${t.httpUrl}/topics/telemetry`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ n }),
      });
    expect((await send(1)).status).toBeLessThan(300);
    const latest = await iot("events", "--device", String(d.id));
    expect(latest.out).toContain('{"n":1}');
    const stop = new AbortController();
    let out = "";
    const following = runCli(["--json", "events", "--device", String(d.id), "--follow", "--limit", "1"], {
      env,
      signal: stop.signal,
      io: { out: (s) => (out += s), err: () => {} },
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await send(2)).status).toBeLessThan(300);
    await expect.poll(() => out, { timeout: 5000 }).toContain('{\\"n\\":2}');
    stop.abort();
    expect(await following).toBe(0);
    expect(
      out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).payload),
    ).toEqual(['{"n":1}', '{"n":2}']);
  });

  it("exports the devices as CSV to a file only the user can read, and imports a CSV, reporting its bad rows", async () => {
    const product = await json("products", "create", "productName=Imported", "cloudProtocol=1");
    const file = join(mkdtempSync(join(tmpdir(), "cli-csv-")), "devices.csv");
    const exported = await iot("export", "-o", file);
    expect(exported.code, exported.err).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const header = readFileSync(file, "utf8").split(/\r?\n/)[0]!;
    const columns = header.split(",");
    expect(columns).toEqual(expect.arrayContaining(["deviceName", "product", "deviceID", "token"]));
    const row = (values: Record<string, string>) => columns.map((c) => values[c] ?? "").join(",");
    const csv = [
      header,
      row({ deviceName: "imported-1", product: product.productID, upLinkSystem: "1", authType: "1", deviceType: "1" }),
      row({ deviceName: "", product: product.productID, upLinkSystem: "1", authType: "1", deviceType: "1" }),
    ].join("\n");
    writeFileSync(file, `${csv}\n`);
    const imported = await iot("import", file);
    expect(imported.code).toBe(1);
    expect(imported.out).toMatch(/^created 1, failed 1/);
    expect(imported.out).toMatch(/line 3: deviceName: /);
    expect((await json("devices", "list", "--like", "imported-")).items).toHaveLength(1);
  });

  it.each([
    ["http", () => t.httpUrl],
    ["mqtt", () => t.mqttUrl],
    ["coap", () => t.coapUrl],
  ])("simulates %s devices sending at a rate, every message acknowledged and stored", async (protocol, target) => {
    const r = await json(
      "simulate",
      "--protocol",
      protocol,
      "--devices",
      "3",
      "--rate",
      "30",
      "--seconds",
      "2",
      "--target",
      target(),
    );
    expect(r).toMatchObject({ protocol, devices: 3, failed: 0 });
    expect(r.ok).toBeGreaterThanOrEqual(50);
    expect(r.p99).toBeGreaterThan(0);
    // The devices are reused by the next run, and each one's messages were stored as its events.
    const devices = (await json("devices", "list", "--like", `sim-${protocol}-`)).items as Array<{ id: number }>;
    expect(devices).toHaveLength(3);
    const events = await iot("--json", "events", "--device", String(devices[0]!.id), "--limit", "5");
    const lines = events.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { topic: string });
    expect(lines).toHaveLength(5);
    expect(lines.every((e) => e.topic === "sim")).toBe(true);
  });

  it("runs as `pnpm iot` in its own process, exiting non-zero with the message on failure", async () => {
    const root = join(import.meta.dirname, "..");
    const ok = await run(
      process.execPath,
      ["--import", "tsx", "packages/cli/src/main.ts", "--json", "products", "list"],
      {
        cwd: root,
        env,
      },
    );
    expect(JSON.parse(ok.stdout).meta.page).toBe(1);
    const failed = await run(
      process.execPath,
      ["--import", "tsx", "packages/cli/src/main.ts", "groups", "get", "999"],
      {
        cwd: root,
        env,
      },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringMatching(/^DATA_NOT_FOUND/) });
  });
});
