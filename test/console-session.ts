/**
 * The one fleet and browser the web console's end-to-end tests share: console.test.ts opens it once and registers
 * the groups of tests of console-*.ts against it, in order, on one page (each test goes on from where the last left
 * the page). The bindings are live: a test reads them once the session is open.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { openConsole, type ConsoleSession } from "./console-browser.js";
import type { TestFleet } from "./helpers.js";

export let c: ConsoleSession;
export let t: TestFleet;
export let page: Page;
export let base: string;

/** Opens the session (fleet and browser) before the file's first test, and closes it after its last. */
export function useConsoleSession(): void {
  beforeAll(async () => {
    c = await openConsole("console");
    ({ t, page, base } = c);
  }, 120_000);

  afterAll(async () => {
    await c?.close();
  });
}

/** Saves a full-page screenshot as test/artifacts/console/<name>.png. */
export const shot = (name: string) => c.shot(name);

/** Requests of the page that read `path` again (its polling), among those since the last `c.requests()`. */
export const reads = (path: string) => c.requests().filter((r) => r.startsWith(`GET /api/v1${path}`));
