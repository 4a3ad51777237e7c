import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PAGE } from "@iot/registry";
import { adminApp, testApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
beforeAll(async () => {
  ({ t, token } = await adminApp());
});
afterAll(() => t.close());

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
  let f: TestApp;
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
