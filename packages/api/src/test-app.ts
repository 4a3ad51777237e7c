import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CommandRouter,
  LiveUpdates,
  SessionTable,
  bootstrapAdmin,
  hashPassword,
  openRegistryStore,
  type AdapterLink,
  type Caller,
  type Store,
} from "@iot/registry";
import { createApp } from "./app.js";
import type { AppDeps } from "./deps.js";

/** What a test may change: the store (default a fresh SQLite file, removed on close) and settings of the app. */
export interface TestAppOptions {
  /** Opens the store instead (its opener removes it); `close()` then only closes it. */
  open?: () => Promise<Store>;
  deps?: Partial<AppDeps>;
}

/** What `testApp` answers: the app, its store and the helpers to call it. */
export type TestApp = Awaited<ReturnType<typeof testApp>>;

/** An API over a fresh store (SQLite unless `options.open`) with an admin, plus helpers to call it (tests only). */
export async function testApp(form: "1" | "2" = "1", options: TestAppOptions = {}) {
  const dir = options.open ? undefined : mkdtempSync(join(tmpdir(), "api-test-"));
  const store: Store = options.open ? await options.open() : await openRegistryStore({ dataDir: dir! });
  await bootstrapAdmin(store.db, { username: "admin", password: "admin-pass-1", tenantName: "T1" });
  const sessions = new SessionTable();
  const live = new LiveUpdates(store.db, sessions);
  const commands = new CommandRouter(store.db, sessions, 60_000);
  const errors: unknown[] = [];
  /** Tenants whose gateway configurations the API said changed, in order. */
  const configChanges: string[] = [];
  const debugs: Array<[string, unknown]> = [];
  const app = createApp({
    store,
    tokenSecret: "test-secret",
    tokenTtlSeconds: 3600,
    loginMaxFailures: 5,
    loginWindowSeconds: 300,
    sessions,
    live,
    commands,
    configChanges: { tenantChanged: (tenantId) => configChanges.push(tenantId) },
    nodeId: "n1",
    form,
    brokers: { mqttBroker: "iot.example:1883", mqttsBroker: "iot.example:8883" },
    startedAt: Date.now(),
    logError: (e) => errors.push(e),
    logDebug: (message, e) => debugs.push([message, e]),
    ...options.deps,
  });
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    extra: Record<string, string> = {},
  ) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...extra };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.request(`/api/v1${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const login = async (username = "admin", password = "admin-pass-1") =>
    (await call("POST", "/login", { username, password })).body.token as string;
  /** Adds a tenant row (for tests of tenant scoping). */
  const addTenant = (tenantId: string) =>
    store.db
      .insertInto("tenants")
      .values({ tenantId, tenantName: tenantId, enable: 1, createAt: Date.now(), updateAt: null })
      .execute();
  /** Adds a user with password `<username>-pass` and logs it in. */
  const addUser = async (tenantId: string, username: string, role: string) => {
    const row = await store.db
      .insertInto("users")
      .values({
        tenantId,
        username,
        email: null,
        passwordHash: await hashPassword(`${username}-pass`),
        role,
        serviceAdmin: 0,
        enable: 1,
        createAt: Date.now(),
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return {
      token: await login(username, `${username}-pass`),
      caller: { userIntId: row.id, username, tenantId, role, serviceAdmin: false } as Caller,
    };
  };
  /** Attaches an adapter stream that records what the registry sends it, with one live session of `deviceIntId`. */
  const attachDevice = (deviceIntId: number, tenantId: string, instanceId = `fake-${deviceIntId}`) => {
    const sent: {
      kicks: Array<[number, string]>;
      policies: Array<[number, unknown[]]>;
      subscriptions: Array<[number, unknown[]]>;
      retained: Array<[number, unknown[]]>;
      tenantLimits: Array<[string, number]>;
    } = { kicks: [], policies: [], subscriptions: [], retained: [], tenantLimits: [] };
    const link: AdapterLink = {
      instanceId,
      protocol: 1,
      version: "t",
      attachedAt: 0,
      sendDownlink: () => {},
      kick: (id, reason) => sent.kicks.push([id, reason]),
      updatePolicies: (id, rules) => sent.policies.push([id, [...rules]]),
      updateSubscriptions: (id, subs) => sent.subscriptions.push([id, [...subs]]),
      updateRetained: (id, retained) => sent.retained.push([id, [...retained]]),
      updateTenantLimits: (tenantId, rate) => sent.tenantLimits.push([tenantId, rate]),
    };
    sessions.attach(link);
    sessions.open(instanceId, {
      sessionId: `s-${deviceIntId}`,
      credentialStamp: "",
      deviceIntId,
      tenantId,
      clientIp: "",
      keepAlive: 0,
      openedAt: 0,
    });
    return { sent, detach: () => sessions.detach(link) };
  };
  return {
    app,
    store,
    sessions,
    commands,
    configChanges,
    errors,
    debugs,
    call,
    login,
    addTenant,
    addUser,
    attachDevice,
    close: async () => {
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh Form 1 app (see `testApp`) and its admin's bearer token, for the files whose tests all call as the admin. */
export async function adminApp() {
  const t = await testApp("1");
  return { t, token: await t.login() };
}
