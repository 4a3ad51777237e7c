import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, MAX_PAGE } from "@iot/registry";
import { testApp } from "./test-app.js";

let t: Awaited<ReturnType<typeof testApp>>;
let token: string;
beforeAll(async () => {
  t = await testApp();
  token = await t.login();
});
afterAll(() => t.close());

describe("login and callers", () => {
  it("answers 201 with a token, the user and the tenant", async () => {
    const r = await t.call("POST", "/login", { username: "admin", password: "admin-pass-1" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ userIntID: 1, username: "admin", role: "admin" });
    expect(r.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(typeof r.body.tenantID).toBe("string");
  });

  it("refuses a wrong password with 401 AUTH_FAILED", async () => {
    const r = await t.call("POST", "/login", { username: "admin", password: "nope" });
    expect(r.status).toBe(401);
    expect(r.body.errorCode).toBe("AUTH_FAILED");
  });

  it("requires a bearer token on every endpoint but health and login", async () => {
    for (const path of ["/products", "/devices", "/device_connect_logs"]) {
      const r = await t.call("GET", path);
      expect(r.status, path).toBe(401);
      expect(r.body.errorCode).toBe("AUTH_FAILED");
    }
    expect((await t.call("GET", "/products", undefined, "forged.token.here")).status).toBe(401);
    expect((await t.call("GET", "/health")).status).toBe(200);
  });

  it("answers a body that is not JSON with 400 BAD_REQUEST", async () => {
    const r = await t.call("POST", "/products", "{not json", token);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("BAD_REQUEST");
  });

  it("answers a body over 1 MiB with 413 before reading it all", async () => {
    const r = await t.call(
      "POST",
      "/products",
      JSON.stringify({ productName: "x".repeat(1024 * 1024 + 10), cloudProtocol: 1 }),
      token,
    );
    expect(r.status).toBe(413);
    expect(r.body.errorCode).toBe("PAYLOAD_TOO_LARGE");
  });

  it("logs a client that aborts its request at debug level, not as an error of ours", async () => {
    const errorsBefore = t.errors.length;
    // What Node's HTTP server does to the body of a request whose client went away mid-upload.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"productName"'));
        controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    });
    const r = await t.app.request("/api/v1/products", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    });
    expect(r.status).toBe(400);
    expect(t.errors.length).toBe(errorsBefore);
    expect(t.debugs.at(-1)?.[0]).toBe("client aborted the request");
  });

  it("answers an unknown path with 404 naming the url", async () => {
    const r = await t.call("GET", "/no_such_thing", undefined, token);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      errorCode: "DATA_NOT_FOUND",
      message: "Not found",
      errors: { url: "/api/v1/no_such_thing" },
    });
  });

  it("answers a JSON body not declared as JSON with 415 UNSUPPORTED_MEDIA_TYPE and creates nothing", async () => {
    const body = JSON.stringify({ productName: "plain", cloudProtocol: 1 });
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", undefined]) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (type) headers["content-type"] = type;
      const res = await t.app.request("/api/v1/products", { method: "POST", headers, body });
      expect(res.status, type).toBe(415);
      const answer = (await res.json()) as { errorCode: string; errors: Record<string, string> };
      expect(answer.errorCode).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(Object.keys(answer.errors)).toEqual(["content-type"]);
    }
    const listed = await t.call("GET", "/products?_limit=1000", undefined, token);
    expect(listed.body.items.map((p: { productName: string }) => p.productName)).not.toContain("plain");
    const typed = await t.call("POST", "/products", body, token, { "content-type": "application/json; charset=utf-8" });
    expect(typed.status).toBe(201);
    expect((await t.call("DELETE", `/products?ids=${typed.body.id}`, undefined, token)).status).toBe(204);
  });

  it("answers a method a path does not take with 405 and an Allow header listing those it takes", async () => {
    const request = (method: string, path: string) =>
      t.app.request(`/api/v1${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const patch = await request("PATCH", "/products/1");
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("GET, HEAD, PUT");
    expect(await patch.json()).toMatchObject({
      errorCode: "METHOD_NOT_ALLOWED",
      errors: { method: expect.any(String) },
    });
    const put = await request("PUT", "/products");
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("DELETE, GET, HEAD, POST");
    const health = await request("DELETE", "/health");
    expect(health.status).toBe(405);
    expect(health.headers.get("allow")).toBe("GET, HEAD");
    // Every method the header names is answered by a route, not by the 405.
    for (const method of put.headers.get("allow")!.split(", ")) {
      const res = await request(method, "/products");
      expect(res.status, method).not.toBe(405);
    }
    expect((await request("PATCH", "/no_such_thing")).status).toBe(404);
  });

  it("lets a viewer read but not write", async () => {
    const admin = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    await t.store.db
      .insertInto("users")
      .values({
        tenantId: admin.tenantId,
        username: "viewer",
        email: null,
        passwordHash: await hashPassword("viewer-pass"),
        role: "viewer",
        serviceAdmin: 0,
        enable: 1,
        createAt: Date.now(),
        updateAt: null,
      })
      .execute();
    const vt = await t.login("viewer", "viewer-pass");
    expect((await t.call("GET", "/products", undefined, vt)).status).toBe(200);
    const w = await t.call("POST", "/products", { productName: "x", cloudProtocol: 1 }, vt);
    expect(w.status).toBe(403);
    expect(w.body.errorCode).toBe("PERMISSION_DENIED");
  });
});

describe("products", () => {
  it("are created with 201, a generated productID and no labels", async () => {
    const r = await t.call("POST", "/products", { productName: "Thermo", cloudProtocol: "1", description: "d" }, token);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ productName: "Thermo", cloudProtocol: 1, description: "d", updateAt: null });
    expect(r.body.productID).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(r.body.createAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(r.body).not.toHaveProperty("cloudProtocolLabel");
  });

  it("reject a bad body with FORM_INVALID naming every bad field", async () => {
    const r = await t.call("POST", "/products", { cloudProtocol: 9 }, token);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(r.body.errors).sort()).toEqual(["cloudProtocol", "productName"]);
  });

  it("are listed newest first with labels, counts and paging meta", async () => {
    await t.call("POST", "/products", { productName: "Second", cloudProtocol: 2 }, token);
    const r = await t.call("GET", "/products?_page=1&_limit=1", undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 1 });
    expect(r.body.items[0]).toMatchObject({ productName: "Second", cloudProtocolLabel: "CoAP", deviceCount: 0 });
    const filtered = await t.call("GET", "/products?productName_like=therm", undefined, token);
    expect(filtered.body.items.map((p: { productName: string }) => p.productName)).toEqual(["Thermo"]);
  });

  it("sort by _sort and _order, ties broken by id, and refuse fields a list does not sort by", async () => {
    await t.call("POST", "/products", { productName: "Alpha", cloudProtocol: 1 }, token);
    const names = async (query: string) =>
      (await t.call("GET", `/products?_limit=1000&${query}`, undefined, token)).body.items.map(
        (p: { productName: string }) => p.productName,
      );
    const newestFirst = await names("");
    expect(await names("_sort=createAt&_order=desc")).toEqual(newestFirst);
    expect(await names("_sort=id&_order=ASC")).toEqual([...newestFirst].reverse());
    const byName = await names("_sort=productName&_order=asc");
    expect(byName).toEqual([...byName].sort());
    expect(byName[0]).toBe("Alpha");
    for (const [query, field, message] of [
      ["_sort=token", "_sort", "must be one of id, createAt, productName, updateAt"],
      ["_sort=a;drop", "_sort", "must be a field name"],
      ["_order=up", "_order", "must be asc or desc"],
    ]) {
      const bad = await t.call("GET", `/products?${query}`, undefined, token);
      expect(bad.status, query).toBe(400);
      expect(bad.body).toMatchObject({ errorCode: "PARAMETER_INVALID", errors: { [field!]: message } });
    }
  });

  it("clamp _limit to 1..1000 and reject a non-numeric _page", async () => {
    expect((await t.call("GET", "/products?_limit=5000", undefined, token)).body.meta.limit).toBe(1000);
    expect((await t.call("GET", "/products?_limit=0", undefined, token)).body.meta.limit).toBe(1);
    const bad = await t.call("GET", "/products?_page=x", undefined, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: "PARAMETER_INVALID", errors: { _page: "must be a whole number" } });
  });

  it("answer PARAMETER_INVALID naming _page for a page past the last one the store can skip to, on every list", async () => {
    const product = (await t.call("POST", "/products", { productName: "Paged", cloudProtocol: 1 }, token)).body;
    const group = (
      await t.call("POST", "/groups", { productID: product.productID, groupName: "g", description: "d" }, token)
    ).body;
    const policy = (await t.call("POST", "/policies", { name: "p", topic: "t", access: 1, allow: 1 }, token)).body;
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, { get?: { parameters?: Array<{ name: string }> } }>;
    };
    const lists = Object.entries(doc.paths)
      .filter(([path, ops]) => !path.includes("{") && ops.get?.parameters?.some((p) => p.name === "_page"))
      .map(([path]) => path.replace("/api/v1", ""));
    expect(lists.length).toBeGreaterThan(15);
    lists.push(`/groups/${group.id}/devices`, `/policies/${policy.id}/devices`);
    for (const path of lists) {
      const huge = await t.call("GET", `${path}?_page=922337203685477581`, undefined, token);
      expect(huge.status, path).toBe(400);
      expect(huge.body, path).toMatchObject({ errorCode: "PARAMETER_INVALID", errors: { _page: expect.any(String) } });
    }
    const last = await t.call("GET", `/products?_page=${MAX_PAGE}&_limit=1000`, undefined, token);
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ items: [], meta: { page: MAX_PAGE, limit: 1000 } });
    expect((await t.call("GET", `/products?_page=${MAX_PAGE + 1}`, undefined, token)).body.errors).toEqual({
      _page: `must be at most ${MAX_PAGE}`,
    });
  });
});

describe.each(["1", "2"] as const)("product edits (Form %s)", (form) => {
  let f: Awaited<ReturnType<typeof testApp>>;
  let tok: string;
  beforeAll(async () => {
    f = await testApp(form);
    tok = await f.login();
  });
  afterAll(() => f.close());
  const create = async () =>
    (await f.call("POST", "/products", { productName: "Fixed", description: "d", cloudProtocol: 1 }, tok)).body as {
      id: number;
    };

  it("validate every member a create takes as the create does, and change nothing when one is bad", async () => {
    const p = await create();
    const bad = form === "1" ? [9, { code: 2 }, true, "x"] : [2, true];
    for (const cloudProtocol of bad) {
      const r = await f.call("PUT", `/products/${p.id}`, { productName: "Renamed", cloudProtocol }, tok);
      expect(r.status, JSON.stringify(cloudProtocol)).toBe(400);
      expect(r.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { cloudProtocol: expect.any(String) } });
    }
    const named = await f.call(
      "PUT",
      `/products/${p.id}`,
      { productName: " ", description: form === "2" ? "" : 7 },
      tok,
    );
    expect(Object.keys(named.body.errors).sort()).toEqual(["description", "productName"]);
    expect((await f.call("GET", `/products/${p.id}`, undefined, tok)).body).toMatchObject({
      productName: "Fixed",
      updateAt: null,
    });
  });

  it("take the whole record back, read-only members included, and refuse a changed cloudProtocol", async () => {
    const p = await create();
    const record = (await f.call("GET", `/products/${p.id}`, undefined, tok)).body;
    const r = await f.call("PUT", `/products/${p.id}`, { ...record, productName: "Edited", cloudProtocol: 1 }, tok);
    expect(r.status).toBe(200);
    expect(r.body.productName).toBe("Edited");
    if (form === "1") {
      const moved = await f.call("PUT", `/products/${p.id}`, { cloudProtocol: 2 }, tok);
      expect(moved.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { cloudProtocol: "cannot be changed" } });
      expect((await f.call("GET", `/products/${p.id}`, undefined, tok)).body.cloudProtocol).toBe(1);
    }
  });
});

describe("devices", () => {
  let productID: string;
  beforeAll(async () => {
    productID = (await t.call("POST", "/products", { productName: "Meters", cloudProtocol: 1 }, token)).body.productID;
  });

  it("are created with generated deviceID, deviceUsername and token when omitted", async () => {
    const r = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "m1", deviceType: 1, upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(r.status).toBe(201);
    expect(r.body.deviceID).toHaveLength(36);
    expect(r.body.deviceUsername).toHaveLength(36);
    expect(r.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(r.body).toMatchObject({ deviceName: "m1", cloudProtocol: 1, deviceStatus: 0, blocked: 0, productID });
    const detail = await t.call("GET", `/devices/${r.body.id}`, undefined, token);
    expect(detail.body).toMatchObject({
      productName: "Meters",
      createUser: "admin",
      deviceStatusLabel: "Offline",
      clientIP: null,
    });
    const list = await t.call("GET", "/devices", undefined, token);
    expect(list.body.items[0]).not.toHaveProperty("createUser");
    expect(list.body.items[0]).toHaveProperty("deviceTypeLabel", "Terminal");
  });

  it("reject a duplicate deviceID or deviceUsername with DATA_EXISTED", async () => {
    await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "a", deviceID: "dup-1", deviceUsername: "dup-user-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    const sameId = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "b", deviceID: "dup-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(sameId.status).toBe(400);
    expect(sameId.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { deviceID: "already exists" } });
    const sameUser = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "c", deviceUsername: "dup-user-1", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(sameUser.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { deviceUsername: "already exists" } });
  });

  it("reject an unknown product and an unknown gateway as FORM_INVALID", async () => {
    const r = await t.call(
      "POST",
      "/devices",
      { productID: "nope", deviceName: "x", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(r.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { productID: "no such product" } });
    const g = await t.call(
      "POST",
      "/devices",
      { productID, deviceName: "x", upLinkSystem: 2, gateway: 999, authType: 1 },
      token,
    );
    expect(g.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { gateway: "no such gateway" } });
  });

  it("answer 404 for an unknown id and an id of another tenant", async () => {
    expect((await t.call("GET", "/devices/99999", undefined, token)).status).toBe(404);
    const other = await t.store.db
      .insertInto("tenants")
      .values({ tenantId: "other", tenantName: "O", enable: 1, createAt: 0, updateAt: null })
      .execute();
    expect(other).toBeTruthy();
    const p = await t.store.db
      .insertInto("products")
      .values({
        tenantId: "other",
        userIntId: 1,
        productId: "OTHER1",
        productName: "theirs",
        description: null,
        cloudProtocol: 1,
        createAt: 0,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const r = await t.call("GET", `/products/${p.id}`, undefined, token);
    expect(r.status).toBe(404);
    expect(r.body.errorCode).toBe("DATA_NOT_FOUND");
    const list = await t.call("GET", "/products?_limit=1000", undefined, token);
    expect(list.body.items.some((x: { productID: string }) => x.productID === "OTHER1")).toBe(false);
    const dev = await t.call(
      "POST",
      "/devices",
      { productID: "OTHER1", deviceName: "sneaky", upLinkSystem: 1, authType: 1 },
      token,
    );
    expect(dev.body.errorCode).toBe("FORM_INVALID");
  });

  it("answer device_publish for an offline device with publishStatus 1 and keep its control log issued (queued)", async () => {
    const d = (await t.call("POST", "/devices", { productID, deviceName: "off", upLinkSystem: 1, authType: 1 }, token))
      .body;
    const r = await t.call("POST", "/device_publish", { deviceID: d.deviceID, payload: "hello" }, token);
    expect(r.status).toBe(201);
    expect(r.body.publishStatus).toBe("1");
    const logs = await t.call("GET", `/devices/${d.id}/control_logs`, undefined, token);
    expect(logs.body.items[0]).toMatchObject({
      id: r.body.controlLogIntID,
      payload: "hello",
      topic: "inbox",
      publishStatus: 1,
      publishUser: "admin",
      deviceName: "off",
    });
  });
});
