import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp, type TestApp } from "./test-app.js";

let t: TestApp;
beforeAll(async () => {
  t = await testApp("1");
});
afterAll(() => t.close());

describe("OpenAPI", () => {
  it("documents every endpoint from the schemas that validate it, and serves the docs", async () => {
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/devices",
        "/api/v1/devices/{id}",
        "/api/v1/gateways",
        "/api/v1/products",
        "/api/v1/login",
        "/api/v1/device_publish",
      ]),
    );
    const create = doc.paths["/api/v1/devices"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(
      expect.arrayContaining(["productID", "deviceName"]),
    );
    expect(create.responses["201"]).toBeDefined();
    expect(doc.paths["/api/v1/devices"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["_page", "_limit", "gateway"]),
    );
    const page = await t.app.request("/api/v1/docs");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("SwaggerUIBundle");
    const js = await t.app.request("/api/v1/docs/swagger-ui-bundle.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
