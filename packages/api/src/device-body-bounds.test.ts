import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "./bounded-json.js";
import { testApp } from "./test-app.js";

type T = Awaited<ReturnType<typeof testApp>>;
let t: T;
let token: string;
let productID: string;
const call = (method: string, path: string, body?: unknown) => t.call(method, path, body, token);
/** A device body that is valid but for `extra`. */
const device = (extra: Record<string, unknown>) => ({
  productID,
  deviceName: "d",
  upLinkSystem: 1,
  authType: 1,
  ...extra,
});
/** JSON text of arrays nested `depth` deep (sent as text: the test's own JSON.stringify would overflow). */
const nestedText = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const bodyWith = (member: string, jsonText: string) =>
  `{"productID":"${productID}","deviceName":"d","upLinkSystem":1,"authType":1,"${member}":${jsonText}}`;

beforeAll(async () => {
  t = await testApp("1");
  token = await t.login();
  productID = (await call("POST", "/products", { productName: "p", cloudProtocol: 1 })).body.productID;
});
afterAll(() => t.close());

describe("device body bounds", () => {
  it("answers 400 FORM_INVALID naming the member for JSON nested deeper than the limit, every time", async () => {
    for (const member of ["location", "metaData", "scopes"]) {
      const deep = member === "scopes" ? `[${nestedText(5000)}]` : `{"a":${nestedText(5000)}}`;
      for (let i = 0; i < 3; i++) {
        const r = await call("POST", "/devices", bodyWith(member, deep));
        expect([r.status, r.body.errorCode, Object.keys(r.body.errors)]).toEqual([400, "FORM_INVALID", [member]]);
      }
    }
    const lora = await call("POST", "/devices", bodyWith("lora", `{"type":${nestedText(5000)}}`));
    expect([lora.status, Object.keys(lora.body.errors)]).toEqual([400, ["lora"]]);
    const edit = await call("POST", "/devices", device({ deviceName: "to-edit" }));
    const put = await call("PUT", `/devices/${edit.body.id}`, bodyWith("location", nestedText(5000)));
    expect([put.status, Object.keys(put.body.errors)]).toEqual([400, ["location"]]);
    expect(t.errors).toEqual([]);
  });

  it("keeps JSON up to the depth limit, and refuses JSON text longer than the size limit", async () => {
    const ok = await call("POST", "/devices", bodyWith("location", nestedText(MAX_JSON_DEPTH)));
    expect(ok.status).toBe(201);
    expect(ok.body.location).toEqual(JSON.parse(nestedText(MAX_JSON_DEPTH)));
    const over = await call("POST", "/devices", bodyWith("location", nestedText(MAX_JSON_DEPTH + 1)));
    expect(over.body.errors).toEqual({ location: `at most ${MAX_JSON_DEPTH} levels of nested arrays and objects` });
    const long = await call("POST", "/devices", device({ metaData: { note: "x".repeat(70_000) } }));
    expect([long.status, long.body.errors]).toEqual([400, { metaData: "at most 65536 characters of JSON" }]);
  });

  it("takes scopes only as a JSON array", async () => {
    for (const scopes of ["abc", true, { a: 1 }, 1e308, 5])
      expect((await call("POST", "/devices", device({ scopes }))).body).toMatchObject({
        errorCode: "FORM_INVALID",
        errors: { scopes: "must be a JSON array" },
      });
    const fence = [
      { lat: 1.5, lng: 2 },
      { lat: 3, lng: 4 },
    ];
    const created = await call("POST", "/devices", device({ deviceName: "fenced", scopes: fence }));
    expect(created.status).toBe(201);
    expect((await call("GET", `/devices/${created.body.id}`)).body.scopes).toEqual(fence);
    const cleared = await call("PUT", `/devices/${created.body.id}`, { scopes: null });
    expect([cleared.status, cleared.body.scopes]).toEqual([200, null]);
  });

  it("refuses control characters other than TAB and LF and lone surrogates in names and text, naming the field", async () => {
    for (const [member, value] of [
      ["deviceName", "lamp\u0000"],
      ["deviceName", "a\rb"],
      ["description", "x\u001by"],
      ["token", "token-\u007f-long"],
      ["manufacturer", "\u0085acme"],
    ] as const) {
      const r = await call("POST", "/devices", device({ [member]: value }));
      expect([r.status, r.body.errors]).toEqual([
        400,
        { [member]: "must not hold control characters (TAB and line feed are allowed)" },
      ]);
    }
    const gateway = await call("POST", "/gateways", {
      productID,
      gatewayName: "gw\u0000",
      gatewayProtocol: 1,
      authType: 1,
    });
    expect(Object.keys(gateway.body.errors)).toEqual(["gatewayName"]);
    const surrogate = await call("POST", "/devices", device({ serialNumber: "sn-\ud800" }));
    expect([surrogate.status, surrogate.body.errors]).toEqual([
      400,
      { serialNumber: "must be well-formed Unicode text" },
    ]);
    const ok = await call("POST", "/devices", device({ deviceName: "tab\there", description: "two\nlines\tand tab" }));
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ deviceName: "tab\there", description: "two\nlines\tand tab" });
    // An empty text member is none, as an empty cell of an import file is.
    const empty = await call("POST", "/devices", device({ deviceName: "empty", description: "", IMSI: "" }));
    expect(empty.body).toMatchObject({ description: null, IMSI: null });
  });
});
