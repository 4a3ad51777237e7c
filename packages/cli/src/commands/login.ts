import { answer, apiClient } from "../client.js";
import type { CommandContext } from "../context.js";
import { credentialsPath, saveCredentials } from "../credentials.js";

/** `iot login -u <user> -p <password> [--url]`: a bearer token, kept in the user's credentials file. */
export async function login(ctx: CommandContext, username: string, password: string): Promise<void> {
  const url = ctx.url ?? ctx.env.IOT_API_URL ?? "http://127.0.0.1:8080";
  const { token } = await answer(apiClient(url).POST("/api/v1/login", { body: { username, password } }));
  const path = credentialsPath(ctx.env);
  saveCredentials(path, { url, token });
  if (ctx.json) ctx.io.out(`${JSON.stringify({ url, credentials: path })}\n`);
  else ctx.io.out(`logged in to ${url}; credentials in ${path}\n`);
}
