import { describe, expect, test } from "vitest";
import {
  DEFAULT_LIFETIME_S,
  endpointImei,
  formatLocation,
  MAX_LIFETIME_S,
  parseRegister,
  parseRegistrationRequest,
  parseUpdate,
  type RegistrationInput,
} from "./registration.js";
import type { Result } from "./result.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  return r.reason;
};

const PAYLOAD = '</>;rt="oma.lwm2m";ct=11543,</1/0>,</3/0>,</3303/0>;ver=1.1';
const register = (query: string[], payload: string = PAYLOAD) =>
  parseRegistrationRequest({ method: "POST", path: ["rd"], query, payload });

describe("Register", () => {
  test("a Register with only ep takes lifetime 86400 s, binding U and LwM2M 1.0 (§5.3.1 defaults)", () => {
    const r = value(register(["ep=urn:imei:490154203237518"], "</1/0>,</3/0>"));
    expect(r).toEqual({
      kind: "register",
      endpoint: "urn:imei:490154203237518",
      lifetime: DEFAULT_LIFETIME_S,
      version: "1.0",
      binding: "U",
      queueMode: false,
      objects: {
        rootPath: "/",
        contentFormats: [],
        objects: [
          { objectId: 1, instances: [0] },
          { objectId: 3, instances: [0] },
        ],
        ignored: [],
      },
    });
  });

  test("reads every parameter of /rd?ep=&lt=&lwm2m=&b=&sms= and the object list", () => {
    const r = value(register(["ep=490154203237518", "lt=300", "lwm2m=1.0", "b=UQS", "sms=+8613800755500"]));
    expect(r).toMatchObject({
      endpoint: "490154203237518",
      lifetime: 300,
      version: "1.0",
      binding: "UQS",
      queueMode: true,
      sms: "+8613800755500",
    });
    if (r.kind !== "register") throw new Error("not a register");
    expect(r.objects.objects.map((o) => o.objectId)).toEqual([1, 3, 3303]);
    expect(r.objects.contentFormats).toEqual([11543]);
  });

  test("a 1.1 client announces queue mode with the Q parameter (Core V1_1 §6.2.1)", () => {
    const r = value(register(["ep=dev", "lwm2m=1.1", "b=U", "Q"]));
    expect(r).toMatchObject({ version: "1.1", binding: "U", queueMode: true });
    expect(value(register(["ep=dev", "lwm2m=1.1", "b=UT"]))).toMatchObject({ binding: "UT", queueMode: false });
  });

  test("takes the query as a map too, where a Q kept with an empty value still counts", () => {
    const q = new Map([
      ["ep", "dev"],
      ["lwm2m", "1.1"],
      ["Q", ""],
    ]);
    expect(value(parseRegistrationRequest({ method: "POST", path: ["rd"], query: q }))).toMatchObject({
      queueMode: true,
    });
  });

  test.each(["U", "UQ", "S", "SQ", "US", "UQS"])("1.0 binding %s is accepted", (b) => {
    expect(value(register(["ep=d", `b=${b}`]))).toMatchObject({ binding: b, queueMode: b.includes("Q") });
  });

  test.each(["T", "N", "UT", "UQT", "SU", "QU", "UU", "X", "", "u"])("1.0 binding %j is refused", (b) => {
    expect(reason(register(["ep=d", `b=${b}`]))).toMatch(/not valid for LwM2M 1.0/);
  });

  test.each(["U", "T", "S", "N", "UT", "UTSN", "NU", "UQ", "UQS"])("1.1 binding %s is accepted", (b) => {
    expect(value(register(["ep=d", "lwm2m=1.1", `b=${b}`]))).toMatchObject({ binding: b });
  });

  test.each(["UU", "X", "Q", "UQQ", "", "u", "UTX"])("1.1 binding %j is refused", (b) => {
    expect(reason(register(["ep=d", "lwm2m=1.1", `b=${b}`]))).toMatch(/not valid for LwM2M 1.1/);
  });

  test("the lifetime limits are 1 and 2^31-1 seconds", () => {
    expect(value(register(["ep=d", "lt=1"]))).toMatchObject({ lifetime: 1 });
    expect(value(register(["ep=d", `lt=${MAX_LIFETIME_S}`]))).toMatchObject({ lifetime: 2147483647 });
    for (const lt of ["0", String(MAX_LIFETIME_S + 1), "99999999999", "-5", "+5", "05", "1.5", "1e3", "", " 60"])
      expect(reason(register(["ep=d", `lt=${lt}`]))).toMatch(/whole number of seconds from 1 to 2147483647/);
  });

  test("ep is required and must be a sane name", () => {
    expect(reason(register(["lt=60"]))).toMatch(/needs the endpoint client name ep/);
    expect(reason(register(["ep="]))).toMatch(/needs the endpoint/);
    expect(reason(register(["ep=" + "x".repeat(256)]))).toMatch(/256 bytes is longer than 255/);
    expect(value(register(["ep=" + "x".repeat(255)]))).toMatchObject({ kind: "register" });
    expect(reason(register(["ep=a\nb"]))).toMatch(/control character/);
  });

  test("LwM2M 1.2 is taken with the 1.1 bindings", () => {
    expect(value(register(["ep=d", "lwm2m=1.2", "b=UT", "Q"]))).toMatchObject({
      version: "1.2",
      binding: "UT",
      queueMode: true,
    });
    expect(reason(register(["ep=d", "lwm2m=1.2", "b=UU"]))).toMatch(/not valid for LwM2M 1.2/);
  });

  test("only LwM2M 1.0, 1.1 and 1.2 are taken", () => {
    for (const v of ["1.3", "2.0", "1", "1.0.2", ""])
      expect(reason(register(["ep=d", `lwm2m=${v}`]))).toMatch(/is not supported/);
  });

  test("an sms that is no MSISDN is refused", () => {
    expect(reason(register(["ep=d", "sms=12ab"]))).toMatch(/not an MSISDN/);
    expect(reason(register(["ep=d", "sms=1234567890123456"]))).toMatch(/not an MSISDN/);
  });

  test("a repeated parameter is refused, since which one counts would be a guess", () => {
    expect(reason(register(["ep=a", "ep=b"]))).toMatch(/ep is given twice/);
  });

  test("unknown parameters are ignored", () => {
    expect(value(register(["ep=d", "apn=internet", "x"]))).toMatchObject({ endpoint: "d" });
  });

  test("a malformed object list is refused with the link's problem; an empty one is no objects", () => {
    expect(reason(register(["ep=d"], "</1/0>,"))).toMatch(/^Register payload: .*trailing/);
    const r = value(register(["ep=d"], ""));
    expect(r.kind === "register" && r.objects.objects).toEqual([]);
    const bytes = value(parseRegister(["ep=d"], Buffer.from("</3/0>")));
    expect(bytes.objects.objects).toEqual([{ objectId: 3, instances: [0] }]);
  });

  test("an object list above the size limit is refused", () => {
    expect(reason(parseRegister(["ep=d"], "</1/0>,</3/0>", { maxBytes: 8 }))).toMatch(/above the limit of 8/);
  });
});

describe("Update", () => {
  const update = (query: string[], payload?: string, version?: "1.0" | "1.1") =>
    parseRegistrationRequest({ method: "POST", path: ["rd", "a1"], query, payload }, () => version);

  test("an empty Update only refreshes the registration", () => {
    expect(value(update([]))).toEqual({ kind: "update", location: "a1" });
  });

  test("carries what the client changes: lifetime, binding, sms and objects", () => {
    expect(value(update(["lt=120", "b=UQ", "sms=123"], "</3/0>,</4/0>", "1.0"))).toEqual({
      kind: "update",
      location: "a1",
      lifetime: 120,
      binding: "UQ",
      queueMode: true,
      sms: "123",
      objects: {
        rootPath: "/",
        contentFormats: [],
        objects: [
          { objectId: 3, instances: [0] },
          { objectId: 4, instances: [0] },
        ],
        ignored: [],
      },
    });
  });

  test("a 1.1 Update with Q says the device is in queue mode; a new binding without Q says it left it", () => {
    expect(value(update(["Q"], undefined, "1.1"))).toEqual({ kind: "update", location: "a1", queueMode: true });
    expect(value(update(["b=U"], undefined, "1.1"))).toMatchObject({ binding: "U", queueMode: false });
  });

  test("the binding is checked against the registered version, or either version when it is unknown", () => {
    expect(reason(update(["b=UT"], undefined, "1.0"))).toMatch(/LwM2M 1.0/);
    expect(value(update(["b=UT"], undefined, "1.1"))).toMatchObject({ binding: "UT" });
    expect(value(update(["b=UT"]))).toMatchObject({ binding: "UT" });
    expect(value(update(["b=UQS"]))).toMatchObject({ binding: "UQS" });
    expect(reason(update(["b=Z"]))).toMatch(/LwM2M 1.0\/1.1/);
    expect(value(parseUpdate("a1", ["b=UT"], undefined))).toMatchObject({ binding: "UT" });
  });

  test("a bad lifetime, sms or object list is refused", () => {
    expect(reason(update(["lt=0"]))).toMatch(/lifetime/);
    expect(reason(update(["sms=x"]))).toMatch(/MSISDN/);
    expect(reason(update([], "<3/0"))).toMatch(/^Update payload:/);
  });

  test("a blank payload is no new object list", () => {
    expect(value(update([], "  "))).toEqual({ kind: "update", location: "a1" });
    expect(value(parseUpdate("a1", [], new Uint8Array(0)))).toEqual({ kind: "update", location: "a1" });
  });
});

describe("De-register and routing", () => {
  const req = (method: string, path: string[]): RegistrationInput => ({ method, path, query: [] });

  test("DELETE /rd/<location> is a De-register", () => {
    expect(value(parseRegistrationRequest(req("DELETE", ["rd", "x-9_Z"])))).toEqual({
      kind: "deregister",
      location: "x-9_Z",
    });
  });

  test.each([
    [req("GET", ["rd"]), /GET \/rd is no registration operation/],
    [req("DELETE", ["rd"]), /DELETE \/rd is no registration operation/],
    [req("PUT", ["rd", "a"]), /no registration operation/],
    [req("POST", ["bs"]), /not a registration resource/],
    [req("POST", []), /not a registration resource/],
    [req("POST", ["rd", "a", "b"]), /not a registration resource/],
    [req("POST", ["rd", "a.b"]), /location "a.b"/],
    [req("DELETE", ["rd", ""]), /location ""/],
    [req("DELETE", ["rd", "x".repeat(65)]), /not a known form/],
  ])("%j is refused", (input, why) => {
    expect(reason(parseRegistrationRequest(input))).toMatch(why);
  });

  test("formatLocation writes /rd/<id> for a valid id only", () => {
    expect(value(formatLocation("a1B_-"))).toBe("/rd/a1B_-");
    expect(reason(formatLocation("a/b"))).toMatch(/must be 1..64/);
    expect(reason(formatLocation(""))).toMatch(/must be 1..64/);
  });
});

describe("endpointImei", () => {
  test("reads the IMEI from the URN form or the bare 15 digits", () => {
    expect(endpointImei("urn:imei:490154203237518")).toBe("490154203237518");
    expect(endpointImei("490154203237518")).toBe("490154203237518");
  });

  test("any other name has no IMEI", () => {
    for (const ep of ["urn:imei:49015420323751", "4901542032375189", "urn:dev:ops:x", "urn:imei-msisdn:1-2", ""])
      expect(endpointImei(ep)).toBeUndefined();
  });
});
