import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIdOf } from "./operation-id.js";
import { testApp } from "./test-app.js";

describe("operationIdOf", () => {
  it("names an operation by its verb and the path's words, item paths with get", () => {
    expect(operationIdOf("get", "/devices")).toBe("listDevices");
    expect(operationIdOf("get", "/devices/:id")).toBe("getDevices");
    expect(operationIdOf("get", "/devices/:id/connect_logs")).toBe("listDevicesConnectLogs");
    expect(operationIdOf("post", "/devices_import")).toBe("createDevicesImport");
    expect(operationIdOf("put", "/data_points/:id")).toBe("updateDataPoints");
    expect(operationIdOf("delete", "/groups/:id/devices")).toBe("deleteGroupsDevices");
  });
});

describe("the OpenAPI document", () => {
  let t: Awaited<ReturnType<typeof testApp>>;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it("gives every operation a unique operationId and names its server, as client generators need", async () => {
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(doc.servers).toEqual([{ url: "/" }]);
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids.length).toBeGreaterThan(90);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(["login", "publishToDevice", "publishToGroup", "getHealth"]));
  });
});
