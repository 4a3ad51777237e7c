import { Hono } from "hono";
import { z } from "zod";
import { login } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import { bodyOf } from "../params.js";

const loginBody = z
  .object({
    username: z.string().min(1).max(100).optional(),
    email: z.string().min(1).max(200).optional(),
    password: z.string().min(1, "required").max(200),
  })
  .refine((b) => b.username || b.email, { message: "username or email is required", path: ["username"] });

/** `POST /login {username|email, password}` → 201 with a bearer token. */
export function loginRoutes(deps: AppDeps) {
  return new Hono<Env>().post("/login", async (c) => {
    const body = await bodyOf(c, loginBody);
    const r = await login(deps.store.db, deps.tokenSecret, { username: (body.username ?? body.email)!, password: body.password }, deps.tokenTtlSeconds);
    return c.json(
      { token: r.token, userIntID: r.userIntId, username: r.username, tenantID: r.tenantId, role: r.role, expiresAt: new Date(r.expiresAt).toISOString() },
      201,
    );
  });
}
