/**
 * The operator CLI against a real fleet: `runCli` in process for most commands (its output captured), and once as
 * the `pnpm iot` entry point in its own process.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@iot/cli";
import { reachable } from "../scripts/fleet.js";
import { freePort, startTestFleet, type TestFleet } from "./helpers.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
/** `pnpm iot` as its script runs it. */
const IOT = [process.execPath, "--import", "tsx", "packages/cli/src/main.ts"];

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
    // The MQTT port is known before start, so the central node gives devices (and `iot simulate`) its real address.
    t = await startTestFleet(
      { IOT_MQTT_PORT: String(await freePort()), IOT_PUBLIC_HOST: "127.0.0.1" },
      { adapters: ["mqtt-adapter", "http-adapter", "coap-adapter"] },
    );
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
    expect(await json("publish", d.deviceID, "exactly once", "--qos", "2")).toMatchObject({ publishStatus: "1" });
    const badQos = await iot("publish", d.deviceID, "x", "--qos", "3");
    expect([badQos.code, badQos.err]).toEqual([1, '--qos must be 0, 1 or 2, not "3"\n']);
    expect(await json("publish", d.deviceID, "on", "--topic", "cfg", "--retain")).toMatchObject({ publishStatus: "1" });
    const retained = await t.api("GET", `/devices/${d.id}/retained`);
    expect(retained.body.items).toMatchObject([{ direction: "command", topic: "cfg", payload: "on" }]);
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
    // It lists the latest stored event first, then follows: once that is out, the next one is followed.
    await expect.poll(() => out, { timeout: 5000 }).toContain('{\\"n\\":1}');
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

  it("simulates MQTT devices at the address the fleet gives its devices when no --target is given", async () => {
    const r = await json("simulate", "--protocol", "mqtt", "--devices", "2", "--rate", "20", "--seconds", "1");
    expect(r.target).toBe(t.mqttUrl);
    expect(r).toMatchObject({ failed: 0, stored: r.ok });
    expect(r.ok).toBeGreaterThanOrEqual(10);
  });

  it("fails, naming the target, when what answered there acknowledged messages the fleet never stored", async () => {
    // Any HTTP server answers 200, as another fleet's adapter or a stray broker would acknowledge.
    const stranger: Server = createServer((req, res) => req.resume().on("end", () => res.end("{}")));
    await new Promise<void>((r) => stranger.listen(0, "127.0.0.1", r));
    try {
      const target = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`;
      const lost = await iot(
        "simulate",
        "--protocol",
        "http",
        "--devices",
        "2",
        "--rate",
        "20",
        "--seconds",
        "1",
        "--target",
        target,
      );
      expect(lost.code).toBe(1);
      expect(lost.err).toMatch(new RegExp(`^${target} acknowledged \\d+ messages but the fleet stored 0`));
    } finally {
      stranger.close();
    }
  });

  it("lists, creates and deletes device and group schedules", async () => {
    const product = await json("products", "create", "productName=Scheduled", "cloudProtocol=5");
    const d = await t.newDevice(product.productID, "cli-scheduled");
    const group = await json("groups", "create", `productID=${product.productID}`, "groupName=cli-group");
    const every = await json(
      "schedules",
      "create",
      d.deviceID,
      "on",
      "--name",
      "hourly",
      "--every",
      "60",
      "--qos",
      "2",
    );
    expect(every).toMatchObject({
      scheduleName: "hourly",
      scheduleType: 1,
      IntervalMinute: "60",
      deviceID: d.deviceID,
      qos: 2,
    });
    const once = await json(
      "schedules",
      "create",
      "--group",
      group.groupID,
      "off",
      "--name",
      "tonight",
      "--at",
      "2099-01-01 00:00:00",
      "--qos",
      "2",
    );
    expect(once).toMatchObject({
      scheduleName: "tonight",
      scheduleType: 0,
      groupID: group.groupID,
      needAck: 1,
      qos: 2,
    });
    const table = await iot("schedules", "list");
    expect(table.out.split("\n")[0]).toMatch(/^id\s+scheduleName\s+deviceID/);
    expect(table.out).toContain("hourly");
    expect((await json("schedules", "list", "--group")).items.map((s: { id: number }) => s.id)).toEqual([once.id]);
    const both = await iot(
      "schedules",
      "create",
      d.deviceID,
      "on",
      "--name",
      "x",
      "--every",
      "5",
      "--cron",
      "* * * * *",
    );
    expect([both.code, both.err]).toEqual([1, "give exactly one of --at, --every and --cron\n"]);
    expect((await iot("schedules", "delete", String(every.id))).out).toBe(`deleted ${every.id}\n`);
    expect((await iot("schedules", "delete", "--group", String(once.id))).code).toBe(0);
    expect((await json("schedules", "list")).items).toEqual([]);
    expect((await json("schedules", "list", "--group")).items).toEqual([]);
  });

  it("exits quietly when the reader of its output stops early (`iot export | head -1`)", async () => {
    const product = await json("products", "create", "productName=Many", "cloudProtocol=1");
    const file = join(mkdtempSync(join(tmpdir(), "cli-many-")), "many.csv");
    const rows = Array.from({ length: 1000 }, (_, i) => `many-${i},${product.productID},1,1`);
    writeFileSync(file, ["deviceName,product,authType,upLinkSystem", ...rows].join("\n"));
    const imported = await iot("import", file);
    expect(imported.out).toBe("created 1000, failed 0\n");
    // Without --json and not on a terminal, the progress comes as lines on stderr while the task runs (none when it
    // ended before the first poll; task-progress.test.ts covers the lines).
    expect(imported.err).toMatch(/^(\d+% (\d+ of )?1000 rows\n)*$/);
    const piped = await run("bash", ["-c", `set -o pipefail; ${IOT.join(" ")} export | head -1`], { cwd: root, env });
    expect(piped.stdout).toMatch(/^deviceName,/);
    expect(piped.stderr).toBe("");
  });

  it("starts `--help` without loading the commands' modules: under 0.5 s of CPU beyond tsx's own start", async () => {
    const cpu = async (code: string) => {
      const r = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: root, env });
      return Number(r.stdout.trim().split("\n").at(-1));
    };
    const spent = "const u = process.cpuUsage(); console.log((u.user + u.system) / 1000);";
    const bare = await cpu(spent);
    const help = await cpu(
      `const { runCli } = await import("./packages/cli/src/cli.ts"); await runCli(["--help"], { io: { out() {}, err() {} } }); ${spent}`,
    );
    expect(help - bare).toBeLessThan(500);
  });

  it("runs as `pnpm iot` in its own process, exiting non-zero with the message on failure", async () => {
    const ok = await run(IOT[0]!, [...IOT.slice(1), "--json", "products", "list"], {
      cwd: root,
      env,
    });
    expect(JSON.parse(ok.stdout).meta.page).toBe(1);
    const failed = await run(IOT[0]!, [...IOT.slice(1), "groups", "get", "999"], {
      cwd: root,
      env,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringMatching(/^DATA_NOT_FOUND/) });
  });
});
