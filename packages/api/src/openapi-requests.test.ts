import { describe, expect, it } from "vitest";
import { openApiDocument } from "./app.js";

type Schema = { required?: string[]; properties: Record<string, any> };
const doc = async (form: "1" | "2") => (await openApiDocument(form)) as { paths: Record<string, any> };
const jsonBody = (op: any): Schema => op.requestBody.content["application/json"].schema;

describe("the OpenAPI document's requests", () => {
  it("requires of a new device only what the API requires: productID and deviceName in Form 1", async () => {
    const body = jsonBody((await doc("1")).paths["/api/v1/devices"].post);
    expect(body.required?.sort()).toEqual(["deviceName", "productID"]);
    expect(body.properties).toHaveProperty("location");
    expect(body.properties).toHaveProperty("metaData");
    expect(body.properties).toHaveProperty("scopes");
  });

  it("requires deviceType and authType of a new device in Form 2, with Form 2's codes", async () => {
    const body = jsonBody((await doc("2")).paths["/api/v1/devices"].post);
    expect(body.required?.sort()).toEqual(["authType", "deviceName", "deviceType", "productID"]);
    expect(body.properties.deviceType.anyOf).toContainEqual({ type: "integer", enum: [0, 1, 2] });
  });

  it("lists the codes a code member takes, as numbers and as digit strings", async () => {
    const body = jsonBody((await doc("1")).paths["/api/v1/products"].post);
    expect(body.properties.cloudProtocol.anyOf).toEqual([
      { type: "integer", enum: [1, 2, 3, 4, 5, 6, 7] },
      { type: "string", enum: ["1", "2", "3", "4", "5", "6", "7"] },
    ]);
  });

  it("documents the device import's CSV upload, as a multipart file or a text/csv body", async () => {
    const content = (await doc("1")).paths["/api/v1/devices_import"].post.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(["multipart/form-data", "text/csv"]);
    expect(content["multipart/form-data"].schema.required).toEqual(["file"]);
  });
});
