import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startProcess, stopProcess } from "../scripts/fleet.js";

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), "startup-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const base = () => ({
  IOT_DATA_DIR: freshDir(),
  IOT_DATABASE_URL: "",
  IOT_API_HOST: "127.0.0.1",
  IOT_API_PORT: "0",
  IOT_GRPC_PORT: "0",
  IOT_LOG_LEVEL: "error",
});
const central = (env: Record<string, string>) =>
  startProcess("central", "packages/central/src/main.ts", env, { timeoutMs: 20_000 });

describe("central node startup", () => {
  it("stops with one line naming a setting with a bad value", async () => {
    await expect(central({ ...base(), IOT_API_PORT: "eighty" })).rejects.toThrow(
      /exited with code 1: central: IOT_API_PORT="eighty": must be a whole number from 0 to 65535$/,
    );
    await expect(central({ ...base(), IOT_API_FORM: "3" })).rejects.toThrow(
      /exited with code 1: central: IOT_API_FORM="3": must be one of 1, 2$/,
    );
  });

  it("stops with one line naming the port and its setting when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(central({ ...base(), IOT_API_PORT: String(port) })).rejects.toThrow(
        new RegExp(
          `exited with code 1: central: central API: port ${port} is already in use \\(set IOT_API_PORT to another port\\)$`,
        ),
      );
      await expect(central({ ...base(), IOT_GRPC_HOST: "127.0.0.1", IOT_GRPC_PORT: String(port) })).rejects.toThrow(
        new RegExp(`central gRPC: port ${port} is already in use \\(set IOT_GRPC_PORT to another port\\)$`),
      );
    } finally {
      blocker.close();
    }
  });

  it("prints a generated admin password once, on the first start only", async () => {
    const env = { ...base(), IOT_ADMIN_USERNAME: "boss" };
    const first = await central(env);
    const line = first.output.find((l) => l.startsWith("Generated password"));
    const password = line?.split(": ").at(-1);
    expect(password).toMatch(/^[\w-]{16}$/);
    const login = await fetch(`http://127.0.0.1:${new URL(first.urls.api!).port}/api/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "boss", password }),
    });
    expect(login.status).toBe(201);
    expect(await stopProcess(first), first.errors.join("\n")).toBe(0);
    const second = await central(env);
    expect(second.output.some((l) => l.includes("password"))).toBe(false);
    expect(await stopProcess(second), second.errors.join("\n")).toBe(0);
  });

  it("refuses a gRPC endpoint beyond loopback without an adapter token", async () => {
    await expect(central({ ...base(), IOT_GRPC_HOST: "0.0.0.0" })).rejects.toThrow(
      /exited with code 1: central: IOT_GRPC_HOST=0\.0\.0\.0 is reachable from other hosts: set IOT_REGISTRY_TOKEN \(the same value in every adapter\)$/,
    );
  });

  it("attaches only adapters that present the adapter token", async () => {
    const env = { ...base(), IOT_REGISTRY_TOKEN: "fleet-secret-1", IOT_ADMIN_PASSWORD: "token-test-pass" };
    const c = await central(env);
    const adapterEnv = (token: string) => ({
      ...env,
      IOT_REGISTRY_URL: c.urls.grpc!,
      IOT_HTTP_DEVICE_PORT: "0",
      IOT_REGISTRY_TOKEN: token,
    });
    const good = await startProcess("http-adapter", "packages/adapters/http/src/main.ts", adapterEnv("fleet-secret-1"));
    const bad = await startProcess("http-adapter", "packages/adapters/http/src/main.ts", adapterEnv("not-the-secret"));
    try {
      const api = `http://127.0.0.1:${new URL(c.urls.api!).port}/api/v1`;
      const login = (await (
        await fetch(`${api}/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: "admin", password: "token-test-pass" }),
        })
      ).json()) as { token: string };
      const adapters = async () =>
        (
          (await (await fetch(`${api}/health`, { headers: { authorization: `Bearer ${login.token}` } })).json()) as {
            adapters: Array<{ instanceId: string }>;
          }
        ).adapters.length;
      await expect.poll(adapters).toBe(1);
      await quietFor(1000, "a second adapter would be listed within this");
      expect(await adapters()).toBe(1);
    } finally {
      await stopProcess(bad);
      await stopProcess(good);
      await stopProcess(c);
    }
  });

  it("refuses a second node on the same SQLite folder with one line, and starts again once the first is killed", async () => {
    const env = { ...base(), IOT_ADMIN_PASSWORD: "single-node-pass" };
    const first = await central(env);
    try {
      await expect(central({ ...env })).rejects.toThrow(
        /exited with code 1: central: another central node is running on .*: SQLite serves one node \(set IOT_DATABASE_URL to a PostgreSQL database to run several\)$/,
      );
    } finally {
      first.child.kill("SIGKILL");
      await stopProcess(first);
    }
    // The lock died with the killed process: nothing stale to clean up.
    const again = await central(env);
    expect(await stopProcess(again), again.errors.join("\n")).toBe(0);
  }, 90_000);

  it("keeps the data folder and the database files private, tightening loose ones at start with a warning", async () => {
    const env = { ...base(), IOT_LOG_LEVEL: "warn", IOT_ADMIN_PASSWORD: "private-files-pass" };
    const dir = join(env.IOT_DATA_DIR, "data");
    env.IOT_DATA_DIR = dir;
    const files = ["iot.db", "iot.db-wal", "iot.db-shm"].map((f) => join(dir, f));
    const mode = (path: string) => statSync(path).mode & 0o777;
    const first = await central(env);
    try {
      expect(mode(dir)).toBe(0o700);
      for (const f of files) expect(existsSync(f) && mode(f), f).toBe(0o600);
    } finally {
      expect(await stopProcess(first), first.errors.join("\n")).toBe(0);
    }
    expect(first.errors.filter((l) => l.includes("tightened"))).toEqual([]);
    chmodSync(dir, 0o755);
    chmodSync(files[0]!, 0o644);
    const second = await central(env);
    try {
      expect(mode(dir)).toBe(0o700);
      for (const f of files) expect(existsSync(f) && mode(f), f).toBe(0o600);
      // Log lines on stderr may trail the READY line on stdout.
      const warnings = () =>
        second.errors.map((l) => JSON.parse(l) as { msg: string }).filter((w) => w.msg.includes("tightened"));
      await expect.poll(warnings).toEqual([
        {
          ...expectedWarning,
          path: dir,
          was: "0755",
          now: "0700",
          msg: `${dir} was open to other users (mode 0755): tightened to 0700`,
        },
        {
          ...expectedWarning,
          path: files[0],
          was: "0644",
          now: "0600",
          msg: `${files[0]} was open to other users (mode 0644): tightened to 0600`,
        },
      ]);
    } finally {
      expect(await stopProcess(second), second.errors.join("\n")).toBe(0);
    }
  });
});

const expectedWarning = {
  level: 40,
  name: "central",
  time: expect.any(Number),
  pid: expect.any(Number),
  hostname: expect.any(String),
};
