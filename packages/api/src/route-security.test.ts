import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "./app.js";
import { testApp } from "./test-app.js";

/** Every operation the API declares, with whether it declares a security requirement (all but health and login). */
interface DeclaredOperation {
  method: string;
  path: string;
  secured: boolean;
}

interface OpenApi {
  security?: unknown[];
  paths: Record<string, Record<string, { security?: unknown[] }>>;
}

async function declaredOperations(): Promise<DeclaredOperation[]> {
  const doc = (await openApiDocument("1")) as OpenApi;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      // Every path parameter is an id or a name; 1 names a record that may or may not exist, which no check needs.
      path: path.replace(/\{[^}]+\}/g, "1"),
      secured: (op.security ?? doc.security ?? []).length > 0,
    })),
  );
}

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

/** A compact JWT of `header` and `claims`, HMAC-SHA256 signed with `secret` (or with no signature at all). */
function jwt(header: unknown, claims: unknown, secret?: string): string {
  const body = `${b64url(header)}.${b64url(claims)}`;
  return `${body}.${secret ? createHmac("sha256", secret).update(body).digest("base64url") : ""}`;
}

let t: Awaited<ReturnType<typeof testApp>>;
let ops: DeclaredOperation[];
let claims: Record<string, unknown>;
let adminToken: string;
let viewerToken: string;

beforeAll(async () => {
  t = await testApp();
  ops = await declaredOperations();
  adminToken = await t.login();
  claims = JSON.parse(Buffer.from(adminToken.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  const tenantId = claims.tenantId as string;
  viewerToken = (await t.addUser(tenantId, "watcher", "viewer")).token;
});
afterAll(() => t?.close());

/** The status of `op` called with `authorization` (none when undefined) and an empty JSON body for writes. */
async function status(op: DeclaredOperation, authorization?: string): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authorization) headers.authorization = authorization;
  const write = !["GET", "HEAD"].includes(op.method);
  const res = await t.app.request(op.path, { method: op.method, headers, ...(write ? { body: "{}" } : {}) });
  // A live stream (GET /stream) never ends: its status is all that is asked.
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
  else await res.arrayBuffer();
  return res.status;
}

/** Calls every secured operation with `authorization` and returns those not answered `expected`. */
async function notAnswered(expected: number, authorization: string | undefined, only = (_: DeclaredOperation) => true) {
  const wrong: string[] = [];
  for (const op of ops.filter((o) => o.secured && only(o))) {
    const s = await status(op, authorization);
    if (s !== expected) wrong.push(`${op.method} ${op.path} → ${s}`);
  }
  return wrong;
}

describe("every declared route", () => {
  it("is declared secured except health and login, enumerated from the OpenAPI document", () => {
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.filter((o) => !o.secured).map((o) => `${o.method} ${o.path}`)).toEqual([
      "GET /api/v1/health",
      "POST /api/v1/login",
    ]);
  });

  it("answers 401 without a token", async () => {
    expect(await notAnswered(401, undefined)).toEqual([]);
  });

  it("answers 401 for an expired token signed with the service's own secret", async () => {
    const now = Math.floor(Date.now() / 1000);
    // The same token still valid is accepted: what the routes refuse below is its expiry alone.
    const valid = jwt({ alg: "HS256", typ: "JWT" }, { ...claims, exp: now + 60 }, "test-secret");
    expect(await status({ method: "GET", path: "/api/v1/products", secured: true }, `Bearer ${valid}`)).toBe(200);
    const expired = jwt({ alg: "HS256", typ: "JWT" }, { ...claims, exp: now - 1 }, "test-secret");
    expect(await notAnswered(401, `Bearer ${expired}`)).toEqual([]);
  });

  it("answers 401 for a tampered token: claims changed under the old signature, or the signature changed", async () => {
    const [header, , signature] = adminToken.split(".");
    const raised = `${header}.${b64url({ ...claims, sub: 999, role: "admin" })}.${signature}`;
    expect(await notAnswered(401, `Bearer ${raised}`)).toEqual([]);
    const flipped = signature!.startsWith("A") ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    expect(await notAnswered(401, `Bearer ${header}.${adminToken.split(".")[1]}.${flipped}`)).toEqual([]);
    const otherSecret = jwt({ alg: "HS256", typ: "JWT" }, claims, "not-the-secret");
    expect(await notAnswered(401, `Bearer ${otherSecret}`)).toEqual([]);
  });

  it("answers 401 for an unsigned token (alg none), with or without a signature part", async () => {
    const none = jwt({ alg: "none", typ: "JWT" }, claims);
    expect(await notAnswered(401, `Bearer ${none}`)).toEqual([]);
    expect(await notAnswered(401, `Bearer ${none.slice(0, -1)}`)).toEqual([]);
  });

  it("answers 403 to a viewer's write, and lets the viewer's reads past authentication", async () => {
    const write = (o: DeclaredOperation) => !["GET", "HEAD"].includes(o.method);
    expect(ops.filter((o) => o.secured && write(o)).length).toBeGreaterThan(20);
    expect(await notAnswered(403, `Bearer ${viewerToken}`, write)).toEqual([]);
    const reads = ops.filter((o) => o.secured && !write(o));
    for (const op of reads) expect([op.path, await status(op, `Bearer ${viewerToken}`)]).not.toEqual([op.path, 401]);
  });
});
