/**
 * Test support (not a test file): the device import and export tests' app on a store engine, and the uploads,
 * downloads and task waits they make.
 */
import type { EngineUnderTest } from "@iot/registry/test-engines";
import type { AppDeps } from "./deps.js";
import { taskEnded } from "./task-ended.js";
import { testApp, type TestApp } from "./test-app.js";

/**
 * A Form 1 app on a fresh store of `engine`, with its admin's `token`, the token of `eve` (admin of tenant2), and
 * `product`, which creates a product as the caller it is given and answers its productID.
 */
export async function transferApp(engine: EngineUnderTest, deps: Partial<AppDeps> = {}) {
  const t = await testApp("1", { open: async () => (await engine.open()).store, deps });
  const token = await t.login();
  await t.addTenant("tenant2");
  const eve = await t.addUser("tenant2", "eve", "admin");
  const product = async (as: string, productName: string, cloudProtocol: number) =>
    (await t.call("POST", "/products", { productName, cloudProtocol }, as)).body.productID as string;
  return { t, token, eve: eve.token, product };
}

/** Sends a CSV body (text/csv, or a multipart form's `file`) to POST /devices_import. */
export async function upload(t: TestApp, token: string, csv: string | Uint8Array, as: "csv" | "multipart" = "csv") {
  const bytes = typeof csv === "string" ? new TextEncoder().encode(csv) : csv;
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: FormData | Uint8Array;
  if (as === "multipart") {
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: "text/csv" }), "devices.csv");
    body = form;
  } else {
    headers["content-type"] = "text/csv";
    body = bytes;
  }
  const res = await t.app.request("/api/v1/devices_import", { method: "POST", headers, body });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/**
 * Waits until a task has ended (status 3 or 4) and answers its last status record; `sampling` sets how often it is
 * read and sees each record read (progress tests).
 */
export function finished(
  t: TestApp,
  token: string,
  statusUrl: string,
  sampling?: { intervalMs?: number; onRead?: (status: Answer) => void },
) {
  return taskEnded<Answer>(async () => (await t.call("GET", statusUrl, undefined, token)).body, sampling);
}

/** An answer's body as `TestApp.call` parses it: JSON of any shape. */
type Answer = Awaited<ReturnType<TestApp["call"]>>["body"];

/** GETs a file (an export's download URL) as the caller of `token`: its status, content type and text. */
export async function download(t: TestApp, token: string, url: string) {
  const res = await t.app.request(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}
