import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendEvents, eventsCommitted, type EventType } from "@iot/registry";
import { testApp } from "./test-app.js";

type Api = Awaited<ReturnType<typeof testApp>>;

/** The tenant of the bootstrap admin (its id is random). */
const adminTenant = async (api: Api) =>
  (await api.store.db.selectFrom("users").select("tenantId").where("username", "=", "admin").executeTakeFirstOrThrow())
    .tenantId;

/** Resolves every name to a public documentation address, except `private.test`. */
const resolve = async (host: string) => (host === "private.test" ? ["10.1.2.3"] : ["93.184.216.34"]);

const hook = (over: Record<string, unknown> = {}) => ({
  webhookName: "orders",
  url: "https://receiver.example/hooks",
  eventTypes: ["uplink", "online"],
  secret: "a-secret-of-16-chars",
  ...over,
});

describe("webhooks REST API", () => {
  let api: Api;
  let token: string;
  beforeEach(async () => {
    api = await testApp("1", { deps: { webhooks: { allowPrivate: false, timeoutMs: 500, resolve } } });
    token = await api.login();
  });
  afterEach(() => api.close());

  it("creates, lists, shows, edits and deletes a webhook, never answering its secret", async () => {
    const created = await api.call("POST", "/webhooks", hook({ deviceIDs: ["d1"] }), token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ webhookName: "orders", eventTypes: ["uplink", "online"], deviceIDs: ["d1"] });
    expect(JSON.stringify(created.body)).not.toContain("a-secret-of-16-chars");
    const id = created.body.id as number;
    const listed = await api.call("GET", "/webhooks", undefined, token);
    expect(listed.body.meta.count).toBe(1);
    expect(listed.body.items[0]).not.toHaveProperty("secret");
    const edited = await api.call("PUT", `/webhooks/${id}`, { enabled: 0, eventTypes: ["offline"] }, token);
    expect(edited.body).toMatchObject({ enabled: 0, eventTypes: ["offline"] });
    expect((await api.call("GET", `/webhooks/${id}`, undefined, token)).body.enabled).toBe(0);
    expect((await api.call("DELETE", `/webhooks?ids=${id}`, undefined, token)).status).toBe(204);
    expect((await api.call("GET", `/webhooks/${id}`, undefined, token)).status).toBe(404);
  });

  it("refuses URLs resolving to private addresses with 400 naming url, and bad event types", async () => {
    const priv = await api.call("POST", "/webhooks", hook({ url: "https://private.test/x" }), token);
    expect(priv.status).toBe(400);
    expect(priv.body.errors.url).toMatch(/10\.1\.2\.3/);
    const loop = await api.call("POST", "/webhooks", hook({ url: "http://127.0.0.1:9000/x" }), token);
    expect(loop.status).toBe(400);
    expect(loop.body.errors).toHaveProperty("url");
    const types = await api.call("POST", "/webhooks", hook({ eventTypes: ["nope"] }), token);
    expect(types.status).toBe(400);
    const short = await api.call("POST", "/webhooks", hook({ secret: "short" }), token);
    expect(short.body.errors).toHaveProperty("secret");
  });

  it("refuses IPv6 URLs that embed a loopback address or denote a non-public range with 400 naming url", async () => {
    for (const url of [
      "http://[::127.0.0.1]/",
      "http://[::ffff:0:127.0.0.1]/",
      "http://[64:ff9b::7f00:1]/",
      "http://[2001:db8::1]/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
    ]) {
      const r = await api.call("POST", "/webhooks", hook({ url }), token);
      expect(r.status, url).toBe(400);
      expect(r.body.errors.url, url).toMatch(/not a public address/);
    }
    const id = (await api.call("POST", "/webhooks", hook(), token)).body.id as number;
    const edited = await api.call("PUT", `/webhooks/${id}`, { url: "http://[64:ff9b::a9fe:a9fe]/" }, token);
    expect(edited.status).toBe(400);
    expect(edited.body.errors).toHaveProperty("url");
  });

  it("answers 404 for another tenant's webhook and lists only the caller's", async () => {
    const id = (await api.call("POST", "/webhooks", hook(), token)).body.id as number;
    await api.addTenant("t2");
    const other = await api.addUser("t2", "boss2", "admin");
    expect((await api.call("GET", `/webhooks/${id}`, undefined, other.token)).status).toBe(404);
    expect((await api.call("PUT", `/webhooks/${id}`, { enabled: 0 }, other.token)).status).toBe(404);
    expect((await api.call("POST", `/webhooks/${id}/test`, undefined, other.token)).status).toBe(404);
    expect((await api.call("GET", `/webhooks/${id}/deliveries`, undefined, other.token)).status).toBe(404);
    expect((await api.call("GET", "/webhooks", undefined, other.token)).body.meta.count).toBe(0);
    await api.call("DELETE", `/webhooks?ids=${id}`, undefined, other.token);
    expect((await api.call("GET", `/webhooks/${id}`, undefined, token)).status).toBe(200);
  });

  it("lets only admins manage webhooks", async () => {
    const op = await api.addUser(await adminTenant(api), "op1", "operator");
    const tenant = (await api.call("GET", "/webhooks", undefined, token)).status;
    expect(tenant).toBe(200);
    expect((await api.call("GET", "/webhooks", undefined, op.token)).status).toBe(403);
  });

  it("records a failed test delivery when the receiver cannot be reached", async () => {
    const id = (await api.call("POST", "/webhooks", hook({ url: "https://unreachable.invalid/x" }), token)).body.id;
    const test = await api.call("POST", `/webhooks/${id}/test`, undefined, token);
    expect(test.status).toBe(200);
    expect(test.body.delivered).toBe(0);
    expect(test.body.error).toBeTruthy();
    const deliveries = await api.call("GET", `/webhooks/${id}/deliveries`, undefined, token);
    expect(deliveries.body.items[0]).toMatchObject({ deliveryID: test.body.deliveryID, status: "failed" });
  });
});

/** Reads an SSE response until `count` events came (or `ms` passed); answers the frames. */
async function readSse(res: Response, count: number, ms = 3_000): Promise<Array<Record<string, string>>> {
  const reader = res.body!.getReader();
  const frames: Array<Record<string, string>> = [];
  let text = "";
  const end = Date.now() + ms;
  while (frames.filter((f) => f.event !== undefined).length < count && Date.now() < end) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), 200)),
    ]);
    if (chunk.value) text += new TextDecoder().decode(chunk.value);
    let at: number;
    while ((at = text.indexOf("\n\n")) >= 0) {
      const frame: Record<string, string> = {};
      for (const line of text.slice(0, at).split("\n")) {
        const colon = line.indexOf(":");
        frame[colon === 0 ? "comment" : line.slice(0, colon)] = line.slice(colon + 1).trim();
      }
      frames.push(frame);
      text = text.slice(at + 2);
    }
  }
  await reader.cancel();
  return frames;
}

describe("GET /stream", () => {
  let api: Api;
  let token: string;
  beforeEach(async () => {
    api = await testApp("1", { deps: { stream: { keepaliveMs: 100, resumeMax: 1000, pollMs: 50 } } });
    token = await api.login();
  });
  afterEach(() => api.close());

  const emit = async (tenant: string, type: EventType, n: number) => {
    const tenantId = tenant === "T1" ? await adminTenant(api) : tenant;
    await api.store.db
      .transaction()
      .execute((tx) => appendEvents(tx, [{ tenantId, deviceIntId: null, type, time: n, data: { n } }]));
    eventsCommitted();
  };
  const open = (path: string, tok: string, headers: Record<string, string> = {}) =>
    api.app.request(`/api/v1${path}`, { headers: { authorization: `Bearer ${tok}`, ...headers } });

  it("streams the caller's tenant's events only, filtered by type, with keepalive comments", async () => {
    await api.addTenant("t2");
    const other = await api.addUser("t2", "boss2", "admin");
    const res = await open("/stream?eventTypes=uplink", token);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const res2 = await open("/stream", other.token);
    await emit("T1", "uplink", 1);
    await emit("t2", "uplink", 2);
    await emit("T1", "offline", 3);
    await emit("T1", "uplink", 4);
    const mine = await readSse(res, 2);
    const events = mine.filter((f) => f.event);
    expect(events.map((f) => JSON.parse(f.data!).data.n)).toEqual([1, 4]);
    expect(events.every((f) => f.event === "uplink" && Number(f.id) > 0)).toBe(true);
    const theirs = (await readSse(res2, 1)).filter((f) => f.event);
    expect(theirs.map((f) => JSON.parse(f.data!).data.n)).toEqual([2]);
    const idle = await readSse(await open("/stream", token), 1, 400);
    expect(idle.some((f) => f.comment === "keepalive")).toBe(true);
  });

  it("resumes after Last-Event-ID", async () => {
    await emit("T1", "uplink", 1);
    await emit("T1", "uplink", 2);
    await emit("T1", "uplink", 3);
    const first = (await readSse(await open("/stream?lastEventID=0", token), 3)).filter((f) => f.event);
    expect(first.map((f) => JSON.parse(f.data!).data.n)).toEqual([1, 2, 3]);
    const resumed = (await readSse(await open("/stream", token, { "last-event-id": first[0]!.id! }), 2)).filter(
      (f) => f.event,
    );
    expect(resumed.map((f) => JSON.parse(f.data!).data.n)).toEqual([2, 3]);
    expect((await open("/stream", token, { "last-event-id": "x" })).status).toBe(400);
  });
});
