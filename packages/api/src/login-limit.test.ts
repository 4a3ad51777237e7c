import { afterEach, describe, expect, it, vi } from "vitest";
import { testApp } from "./test-app.js";

type App = Awaited<ReturnType<typeof testApp>>;
const apps: App[] = [];

async function fresh(): Promise<App> {
  const t = await testApp();
  apps.push(t);
  return t;
}

afterEach(async () => {
  vi.useRealTimers();
  for (const t of apps.splice(0)) await t.close();
});

/** A login from `address`, as if over a Node socket (what getConnInfo reads). */
async function loginFrom(t: App, address: string, username: string, password: string) {
  const res = await t.app.request(
    "/api/v1/login",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) },
    { incoming: { socket: { remoteAddress: address } } },
  );
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as { errorCode?: string; token?: string },
  };
}

describe("login rate limit (5 failures per 300 s)", () => {
  it("refuses an address with 429 and Retry-After after 5 failures from it, even with the right password, while other addresses still log in", async () => {
    const t = await fresh();
    const firstFailure = Date.now();
    for (let i = 0; i < 5; i++) expect((await loginFrom(t, "10.0.0.1", `nobody${i}`, "wrong-pass")).status).toBe(401);
    const blocked = await loginFrom(t, "10.0.0.1", "admin", "admin-pass-1");
    expect(blocked.status).toBe(429);
    expect(blocked.body.errorCode).toBe("TOO_MANY_REQUESTS");
    // Until the first failure leaves the 300 s window: 300 less the seconds the failures took (more on a slow machine).
    const elapsed = Math.ceil((Date.now() - firstFailure) / 1000);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(300);
    expect(Number(blocked.retryAfter)).toBeGreaterThanOrEqual(300 - elapsed);
    expect((await loginFrom(t, "10.0.0.2", "admin", "admin-pass-1")).status).toBe(201);
  });

  it("refuses a username with 429 after 5 failures for it from any addresses, while other users still log in from there", async () => {
    const t = await fresh();
    const token = await t.login();
    await t.call("POST", "/users", { username: "alice", password: "alice-pass", role: "viewer" }, token);
    for (let i = 0; i < 5; i++) expect((await loginFrom(t, `10.0.1.${i}`, "admin", "wrong-pass")).status).toBe(401);
    const blocked = await loginFrom(t, "10.0.2.1", "admin", "admin-pass-1");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect((await loginFrom(t, "10.0.1.0", "alice", "alice-pass")).status).toBe(201);
  });

  it("clears a username's failures when it logs in successfully", async () => {
    const t = await fresh();
    for (let i = 0; i < 4; i++) await loginFrom(t, `10.0.3.${i}`, "admin", "wrong-pass");
    expect((await loginFrom(t, "10.0.4.0", "admin", "admin-pass-1")).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await loginFrom(t, `10.0.5.${i}`, "admin", "wrong-pass")).status).toBe(401);
    expect((await loginFrom(t, "10.0.4.1", "admin", "admin-pass-1")).status).toBe(201);
  });

  it("lets logins through again once the window has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const t = await fresh();
    for (let i = 0; i < 5; i++) await loginFrom(t, "10.0.6.1", "admin", "wrong-pass");
    vi.setSystemTime(new Date("2030-01-01T00:04:59Z"));
    const late = await loginFrom(t, "10.0.6.1", "admin", "admin-pass-1");
    expect(late.status).toBe(429);
    expect(late.retryAfter).toBe("1");
    vi.setSystemTime(new Date("2030-01-01T00:05:00Z"));
    expect((await loginFrom(t, "10.0.6.1", "admin", "admin-pass-1")).status).toBe(201);
  });

  it("counts in-process requests that have no socket under one shared address", async () => {
    const t = await fresh();
    for (let i = 0; i < 5; i++) await t.call("POST", "/login", { username: `ghost${i}`, password: "wrong-pass" });
    expect((await t.call("POST", "/login", { username: "admin", password: "admin-pass-1" })).status).toBe(429);
  });

  it("does not count a request whose body is invalid", async () => {
    const t = await fresh();
    for (let i = 0; i < 6; i++) expect((await loginFrom(t, "10.0.7.1", "admin", "")).status).toBe(400);
    expect((await loginFrom(t, "10.0.7.1", "admin", "admin-pass-1")).status).toBe(201);
  });
});
