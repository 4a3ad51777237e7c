import { z } from "zod";
import { login, memoryLoginLimiter, RegistryError } from "@iot/registry";
import { signToken } from "../bearer-token.js";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { clientAddress } from "../middleware/client-address.js";
import { ApiRouter } from "../router.js";

const loginBody = z
  .strictObject({
    username: z.string().min(1).max(100).optional(),
    email: z.string().min(1).max(200).optional(),
    password: z.string().min(1, "required").max(200),
  })
  .refine((b) => b.username || b.email, { message: "username or email is required", path: ["username"] });

/**
 * `POST /login {username|email, password}` → 201 with a bearer token. After
 * `loginMaxFailures` failures within `loginWindowSeconds` from one client
 * address or for one username, further attempts from it or for it answer
 * 429 TOO_MANY_REQUESTS with Retry-After (seconds), even with the right
 * password; a success clears the username's failures. Several nodes count together (`deps.loginLimiter`).
 */
export function loginRoutes(deps: AppDeps, docs: ApiDocs) {
  const limiter =
    deps.loginLimiter ??
    memoryLoginLimiter({ maxFailures: deps.loginMaxFailures, windowMs: deps.loginWindowSeconds * 1000 });
  return new ApiRouter(docs, "Callers").post(
    "/login",
    {
      summary: "Log in: a bearer token for the other endpoints",
      body: loginBody,
      open: true,
      operationId: "login",
      response: z.object({
        token: z.string(),
        userIntID: z.number().int(),
        username: z.string(),
        tenantID: z.string(),
        role: z.string().describe("admin, operator or viewer"),
        expiresAt: z.string().describe("ISO 8601"),
      }),
    },
    async (c, { body }) => {
      const username = (body.username ?? body.email)!;
      const keys = [`ip:${clientAddress(c)}`, `user:${username}`];
      const waitMs = await limiter.blockedFor(keys);
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        c.header("Retry-After", String(seconds));
        throw new RegistryError("TOO_MANY_REQUESTS", undefined, `Too many failed logins; retry in ${seconds} seconds`);
      }
      // Counted as a failure before checking, so concurrent guesses cannot slip past the limit.
      const at = await limiter.fail(keys);
      const r = await login(deps.store.db, { username, password: body.password }, deps.tokenTtlSeconds).catch(
        async (err: unknown) => {
          if (!(err instanceof RegistryError && err.code === "AUTH_FAILED")) await limiter.forgive(keys, at);
          throw err;
        },
      );
      await limiter.forgive(keys, at);
      await limiter.reset(keys[1]!);
      return {
        token: await signToken(r.claims, deps.tokenSecret),
        userIntID: r.userIntId,
        username: r.username,
        tenantID: r.tenantId,
        role: r.role,
        expiresAt: new Date(r.expiresAt).toISOString(),
      };
    },
  ).app;
}
