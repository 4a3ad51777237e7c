import { apiClient, CliError, type ApiClient } from "./client.js";
import { credentialsPath, loadCredentials } from "./credentials.js";
import type { Io } from "./output.js";

/** What every command gets: where to write, the environment, and the global options. */
export interface CommandContext {
  readonly io: Io;
  readonly env: NodeJS.ProcessEnv;
  /** --json: machine-readable output. */
  readonly json: boolean;
  /** --url: the API, overriding the saved one. */
  readonly url?: string | undefined;
}

function saved(ctx: CommandContext) {
  const c = loadCredentials(credentialsPath(ctx.env));
  if (!c) throw new CliError("not logged in: run `iot login` first");
  return c;
}

/** The logged-in client: the saved credentials (their URL unless --url names another). */
export function loggedIn(ctx: CommandContext): ApiClient {
  const c = saved(ctx);
  return apiClient(ctx.url ?? c.url, c.token);
}

/** The API's address the logged-in client uses. */
export function apiUrl(ctx: CommandContext): string {
  return ctx.url ?? saved(ctx).url;
}

/** A raw request to the API with the saved token (for bodies and answers the typed client does not model: CSV). */
export async function authedFetch(ctx: CommandContext, path: string, init: RequestInit = {}): Promise<Response> {
  const c = saved(ctx);
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${c.token}`);
  try {
    return await fetch(`${(ctx.url ?? c.url).replace(/\/+$/, "")}${path}`, { ...init, headers });
  } catch (err) {
    throw new CliError(`cannot reach the API: ${(err as Error).message}`);
  }
}
