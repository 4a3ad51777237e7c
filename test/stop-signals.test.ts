import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "stop-during-startup.ts");

describe("stop signals", () => {
  it("are honoured when they arrive before the process has registered its stop work, even twice", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("ARMED") && !out.includes("SIGNALLED")) {
        out += "SIGNALLED\n";
        child.kill("SIGTERM");
        child.kill("SIGINT");
      }
    });
    const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(out).toContain("STOPPED");
  });
});

describe("pnpm start", () => {
  it("comes up when a default metrics port is taken, says how to log in, and exits 0 on Ctrl-C without ELIFECYCLE", async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "..");
    const pnpm = execFileSync("npx", ["--yes", "-p", "pnpm@10.34.8", "sh", "-c", "command -v pnpm"], {
      encoding: "utf8",
    }).trim();
    // The MQTT adapter's default metrics port, taken (by this holder, or already by another fleet on the host).
    const holder = createServer().on("error", () => {});
    await new Promise<void>((r) => holder.listen(9101, "0.0.0.0", r).once("error", () => r()));
    const dataDir = mkdtempSync(join(tmpdir(), "pnpm-start-"));
    const env = {
      ...process.env,
      IOT_DATA_DIR: dataDir,
      IOT_DATABASE_URL: "",
      IOT_API_HOST: "127.0.0.1",
      ...Object.fromEntries(
        ["API", "GRPC", "MQTT", "MQTTS", "MQTTSS", "MQTT_WS", "HTTP_DEVICE", "COAP", "LWM2M", "LWM2M_DTLS"].map((p) => [
          `IOT_${p}_PORT`,
          "0",
        ]),
      ),
      IOT_ADMIN_PASSWORD: "start-admin-pass",
      IOT_LOG_LEVEL: "warn",
    };
    // Its own process group, as a terminal's foreground job: Ctrl-C sends SIGINT to every process in it.
    const child = spawn(pnpm, ["start"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    const exited = once(child, "exit");
    try {
      await expect.poll(() => out, { timeout: 90_000, interval: 200 }).toContain("Press Ctrl-C to stop.");
      expect(out).toMatch(/\(mqtt-adapter: metrics port 9101 was taken, so http:\/\/[\d.]+:\d+\/metrics;/);
      expect(out).toContain('Log in     as "admin" with IOT_ADMIN_PASSWORD');
      expect(out).toContain("Records    Form 1");
      process.kill(-child.pid!, "SIGINT");
      const [code, signal] = (await exited) as [number | null, string | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(out).not.toContain("ELIFECYCLE");
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
      holder.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
