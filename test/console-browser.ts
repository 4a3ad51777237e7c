import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { ensureConsoleBuilt } from "../packages/console/src/console-build.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

/** Debian's chromium package: the browser the console tests drive. */
const CHROMIUM = "/usr/bin/chromium";

/** A running mosquitto_sub: what it printed, the connection arguments it used (for mosquitto_pub), and stop. */
interface DeviceClient {
  output: () => string;
  args: string[];
  stop: () => void;
}

/** A fleet, a headless chromium with a fresh profile on one page, and the console's address. */
export interface ConsoleSession {
  t: TestFleet;
  page: Page;
  /** `http://host:port` of the central node (the console is at `${base}/console/`). */
  base: string;
  /** A private folder for the test's files (removed on close). */
  dir: string;
  /** Saves a full-page screenshot as test/artifacts/<folder>/<name>.png. */
  shot(name: string): Promise<void>;
  /** Logs in through the form unless the page is logged in already (the token lives in the page's memory). */
  login(): Promise<void>;
  /** Opens a console path (`/devices/3`) inside the page, as its links do: a page load would forget the token. */
  go(path: string): Promise<void>;
  /** The API paths (`/api/v1/…`, with query) the page requested since the last call. */
  requests(): string[];
  /** mosquitto_sub as the device (its inbox, QoS 1), output collected; killed on close at the latest. */
  subscribeAsDevice(creds: Record<string, string>): DeviceClient;
  close(): Promise<void>;
}

/**
 * Builds the console if its sources changed, starts a fleet (`env` on top of the test defaults) and chromium with the
 * flags of a quiet headless run, in `locale` (navigator.language). What the page logs and throws, and a last
 * screenshot, go to test/artifacts/<folder>.
 */
export async function openConsole(
  folder: string,
  env: Record<string, string> = {},
  locale = "en-US",
): Promise<ConsoleSession> {
  await ensureConsoleBuilt();
  const artifacts = join(import.meta.dirname, "artifacts", folder);
  mkdirSync(artifacts, { recursive: true });
  // The console tests reach devices over MQTT only (mosquitto_sub and mosquitto_pub).
  const t = await startTestFleet(env, { adapters: ["mqtt-adapter"] });
  const base = t.apiUrl.replace(/\/api\/v1$/, "");
  const dir = mkdtempSync(join(tmpdir(), "console-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      locale,
      viewport: { width: 1280, height: 900 },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  } catch (err) {
    await t.close();
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const log: string[] = [];
  page.on("console", (m) => log.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
  const children: ChildProcess[] = [];
  let requested: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/v1/")) requested.push(`${r.method()} ${url.pathname}${url.search}`);
  });
  const session: ConsoleSession = {
    t,
    page,
    base,
    dir,
    shot: async (name) => void (await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })),
    async login() {
      if (await page.locator("nav.side").isVisible()) return;
      await page.goto(`${base}/console/`);
      await page.locator("input[name=password], h1").first().waitFor();
      if (await page.locator("input[name=password]").isVisible()) {
        await page.fill("input[name=username]", "admin");
        await page.fill("input[name=password]", "e2e-admin-pass");
        await page.click("button[type=submit]");
      }
      await page.locator("nav.side").waitFor();
    },
    async go(path) {
      await session.login();
      // Run in the page (a string: the test's tsconfig has no DOM types).
      await page.evaluate(
        `history.pushState(null, "", ${JSON.stringify(`/console${path}`)}); dispatchEvent(new PopStateEvent("popstate"))`,
      );
    },
    requests() {
      const r = requested;
      requested = [];
      return r;
    },
    subscribeAsDevice(creds) {
      const { hostname, port } = new URL(t.mqttUrl);
      const args = ["-h", hostname, "-p", port, "-i", creds.deviceID!, "-u", creds.deviceUsername!];
      args.push("-P", creds.token!);
      const child = spawn("mosquitto_sub", [...args, "-t", "inbox", "-q", "1", "-v"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let out = "";
      child.stdout.on("data", (b: Buffer) => (out += b.toString()));
      child.stderr.on("data", (b: Buffer) => (out += b.toString()));
      return { output: () => out, args, stop: () => child.kill("SIGTERM") };
    },
    async close() {
      await page.screenshot({ path: join(artifacts, "last.png"), fullPage: true }).catch(() => {});
      if (log.length > 0) writeFileSync(join(artifacts, "browser.log"), `${log.join("\n")}\n`);
      for (const c of children) c.kill("SIGKILL");
      await context.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return session;
}
