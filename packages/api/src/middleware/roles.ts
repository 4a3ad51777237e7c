import type { Context } from "hono";
import { fail, roleAtLeast, type Caller, type Role } from "@iot/registry";
import type { Env } from "../deps.js";

/** The caller, when its role is at least `min`; otherwise PERMISSION_DENIED (403). */
export function requireRole(c: Context<Env>, min: Role): Caller {
  const caller = c.get("caller");
  if (!roleAtLeast(caller.role, min))
    throw fail.denied(`Only ${min === "admin" ? "admins" : `${min}s and above`} may do this`);
  return caller;
}

/** The caller, when it is the service administrator (created on first start); otherwise PERMISSION_DENIED. */
export function requireServiceAdmin(c: Context<Env>): Caller {
  const caller = c.get("caller");
  if (!caller.serviceAdmin) throw fail.denied("Only the service administrator may do this");
  return caller;
}
