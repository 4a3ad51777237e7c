import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@iot/registry";
import { adminApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
beforeAll(async () => {
  ({ t, token } = await adminApp());
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
