import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./api-types.js";

/** The typed REST client: every path, parameter and body as the API's OpenAPI document declares them. */
export type ApiClient = Client<paths>;

/** A failure to report: the API's own message, or why the API could not be reached; the CLI exits 1. */
export class CliError extends Error {}

/** A client of the API at `url` (e.g. http://127.0.0.1:8080), sending `token` as its bearer token when given. */
export function apiClient(url: string, token?: string): ApiClient {
  const client = createClient<paths>({ baseUrl: url.replace(/\/+$/, "") });
  if (token)
    client.use({
      onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${token}`);
        return request;
      },
    });
  return client;
}

/**
 * The data of an API answer, or a CliError with the API's message and field errors (`FORM_INVALID: deviceName:
 * required`), or with why it could not be reached.
 */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: Awaited<typeof call>;
  try {
    r = await call;
  } catch (err) {
    throw new CliError(`cannot reach the API: ${(err as Error).message}`);
  }
  if (r.response.ok) return r.data as T;
  const e = (r.error ?? {}) as { errorCode?: string; message?: string; errors?: Record<string, string> };
  const fields = Object.entries(e.errors ?? {}).map(([k, v]) => `${k}: ${v}`);
  const head = `${e.errorCode ?? r.response.status}: ${e.message ?? r.response.statusText}`;
  throw new CliError(fields.length ? `${head} (${fields.join("; ")})` : head);
}

type Method = "GET" | "POST" | "PUT" | "DELETE";
type Init = { params?: { path?: Record<string, unknown>; query?: Record<string, unknown> }; body?: unknown };

/** The JSON body of a success answer among an operation's `responses` (none for 204). */
type SuccessJson<R> = {
  [S in keyof R]: S extends 200 | 201 | 202
    ? R[S] extends { content: { "application/json": infer B } }
      ? B
      : undefined
    : never;
}[keyof R];

/**
 * What the API answers `method` on `path` with, as its OpenAPI document declares it (a union when `path` is a union,
 * as the resource commands' paths are).
 */
export type AnswerOf<P extends keyof paths, M extends Method> = P extends keyof paths
  ? paths[P][Lowercase<M> & keyof paths[P]] extends { responses: infer R }
    ? SuccessJson<R>
    : never
  : never;

/**
 * A call whose path is chosen at run time among documented ones (the resource commands share one implementation for
 * products, devices and groups) or only known at run time (a task's statusUrl): its answer is typed from the document
 * when the path is one of its paths, and its parameters and body are checked only by the API.
 */
export function dynamicCall<P extends keyof paths, M extends Method>(
  client: ApiClient,
  method: M,
  path: P,
  init?: Init,
): Promise<AnswerOf<P, M>>;
export function dynamicCall(client: ApiClient, method: Method, path: string, init?: Init): Promise<unknown>;
export function dynamicCall(client: ApiClient, method: Method, path: string, init: Init = {}): Promise<unknown> {
  const call = client[method] as unknown as (
    p: string,
    i: Init,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  return answer(call(path, init));
}
