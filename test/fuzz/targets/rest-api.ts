/**
 * The REST API in process (`app.request`): every operation declared in its OpenAPI document, with path parameters
 * (ids that exist, or odd text), query strings from the declared parameters (valid, odd or extra) and JSON bodies
 * generated from the declared schemas, then field-mutated (swaps, drops, odd values, extras) or sent as mutated
 * bytes. Callers: an admin and a viewer of a tenant of their own. No answer may be 500. Alive: the service admin
 * of the first tenant still lists and creates products.
 */
import fc from "fast-check";
import { openApiDocument } from "@iot/api";
import { firmwareDir } from "../../../packages/api/src/firmware-fixture.js";
import { testApp } from "../../../packages/api/src/test-app.js";
import { mutatedFields, mutatedText, oddJson, type FuzzTarget } from "../harness.js";
import { operationsOf, valueOf, type Operation } from "../openapi-arbitrary.js";

interface Case {
  op: Operation;
  path: string;
  query: string;
  body?: string;
  contentType: string;
  caller: "admin" | "viewer" | "none";
}

const ODD_TEXT = [
  "",
  "0",
  "-1",
  "1.5",
  "abc",
  "99999999999999999999",
  "1e3",
  "%00",
  " 1",
  "1,2",
  "null",
  "'",
  "\u{1F600}",
];
const odd = fc.oneof(fc.constantFrom(...ODD_TEXT), fc.string({ maxLength: 30 }));

/** A generated value as query text: strings as they are, anything else as JSON. */
const asText = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

function caseOf(op: Operation, ids: readonly string[]): fc.Arbitrary<Case> {
  const pathValues = fc.array(
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: odd }),
    {
      minLength: op.pathParams.length,
      maxLength: op.pathParams.length,
    },
  );
  const query = fc
    .tuple(
      fc.array(
        fc
          .constantFrom(...(op.query.length ? op.query : [{ name: "x", required: false, schema: {} }]))
          .chain((p) =>
            fc.tuple(
              fc.constant(p.name),
              fc.oneof({ weight: 3, arbitrary: valueOf(p.schema).map(asText) }, { weight: 1, arbitrary: odd }),
            ),
          ),
        { maxLength: 4 },
      ),
      fc.array(fc.tuple(fc.string({ maxLength: 6 }), odd), { maxLength: 1 }),
    )
    .map(([declared, extra]) => new URLSearchParams([...declared, ...extra]).toString());
  const valid = op.body ? valueOf(op.body) : fc.constant(undefined);
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: valid.chain((v) =>
        v !== null && typeof v === "object" && !Array.isArray(v)
          ? mutatedFields(fc.constant(v as Record<string, unknown>)).map((o) => JSON.stringify(o))
          : fc.constant(v === undefined ? undefined : JSON.stringify(v)),
      ),
    },
    { weight: 1, arbitrary: mutatedText(valid.map((v) => JSON.stringify(v ?? {}))) },
    { weight: 1, arbitrary: oddJson.map((v) => JSON.stringify(v)) },
  );
  return fc.record(
    {
      op: fc.constant(op),
      path: pathValues.map((vs) =>
        op.pathParams.reduce((p, name, i) => p.replace(`{${name}}`, encodeURIComponent(vs[i]!)), op.path),
      ),
      query,
      body,
      contentType: fc.constantFrom("application/json", "application/json", "application/json", "text/plain", ""),
      caller: fc.constantFrom("admin", "admin", "admin", "viewer", "none"),
    },
    { requiredKeys: ["op", "path", "query", "contentType", "caller"] },
  );
}

/** The REST API target: one app over a fresh SQLite store. */
export const restApi: FuzzTarget<Case> = {
  name: "rest-api",
  description: "every declared REST operation with generated and mutated paths, queries and bodies never answers 500",
  async start() {
    // As central sets it up: with a firmware folder (a deployment without one answers 503 to firmware calls).
    const t = await testApp("1", { deps: { firmwareDir: firmwareDir() } });
    await t.addTenant("fuzz");
    const admin = (await t.addUser("fuzz", "fuzz-admin", "admin")).token;
    const viewer = (await t.addUser("fuzz", "fuzz-viewer", "viewer")).token;
    const service = await t.login();
    const call = (method: string, path: string, token: string, body?: unknown) =>
      t.app.request(path, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // Records the fuzzing caller can reach, so ids in paths find something.
    const product = (await (
      await call("POST", "/api/v1/products", admin, { productName: "p", cloudProtocol: 1 })
    ).json()) as {
      productID: string;
      id: number;
    };
    const device = (await (
      await call("POST", "/api/v1/devices", admin, { deviceName: "d", productID: product.productID })
    ).json()) as { id: number; deviceID: string };
    const ids = [
      String(product.id ?? 1),
      String(device.id ?? 1),
      product.productID ?? "x",
      device.deviceID ?? "y",
      "1",
      "2",
    ];
    const ops = operationsOf(await openApiDocument("1"));
    let n = 0;
    return {
      arbitrary: fc.constantFrom(...ops).chain((op) => caseOf(op, ids)),
      async run(c) {
        const token = c.caller === "admin" ? admin : c.caller === "viewer" ? viewer : undefined;
        const headers: Record<string, string> = {};
        if (token) headers.authorization = `Bearer ${token}`;
        if (c.contentType) headers["content-type"] = c.contentType;
        const hasBody = c.body !== undefined && c.op.method !== "GET" && c.op.method !== "HEAD";
        const res = await t.app.request(`${c.path}${c.query ? `?${c.query}` : ""}`, {
          method: c.op.method,
          headers,
          ...(hasBody ? { body: c.body } : {}),
        });
        // A live stream (GET /stream) never ends: a 200 opening one is all it can answer.
        const live = res.headers.get("content-type")?.startsWith("text/event-stream");
        const text = live ? (await res.body?.cancel(), "") : await res.text();
        if (res.status >= 500) throw new Error(`${c.op.method} ${c.path}?${c.query} answered ${res.status}: ${text}`);
      },
      async alive() {
        const list = await call("GET", "/api/v1/products", service);
        if (list.status !== 200) throw new Error(`the service admin's product list answered ${list.status}`);
        const made = await call("POST", "/api/v1/products", service, { productName: `live-${++n}`, cloudProtocol: 1 });
        if (made.status !== 201) throw new Error(`the service admin's product creation answered ${made.status}`);
      },
      forget() {
        t.errors.length = 0;
        t.debugs.length = 0;
        t.configChanges.length = 0;
      },
      stop: () => t.close(),
    };
  },
};
