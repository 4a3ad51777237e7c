import { LWM2M_SECURITY_MODES } from "@iot/registry";
import { z } from "zod";
import { f } from "./common.js";

/** Largest registration lifetime LwM2M allows (`lt`, seconds). */
const MAX_LIFETIME = 2_147_483_647;
/** LwM2M 1.0 bindings, and 1.1's: each transport letter (U, T, S, N) at most once, Q for queue mode. */
const BINDING = /^(?!.*(.).*\1)(?=.*[UTSN])[UTSNQ]{1,5}$/;

/** Null, absent or "" members are left to the deployment's defaults. */
const nullish = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => (v === "" || v === null ? undefined : v));

/** A coap:// or coaps:// URI with a host (the LwM2M server a bootstrap points the client at). */
const serverUri = z
  .string()
  .max(255, "at most 255 characters")
  .refine((v) => {
    if (v === "") return true;
    try {
      const u = new URL(v);
      return (u.protocol === "coap:" || u.protocol === "coaps:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, "must be a coap:// or coaps:// URI with a host");

/**
 * `lwm2mBootstrap` in a device body (docs/devices/lwm2m.md, Bootstrap): each member checked here (400 naming
 * `lwm2mBootstrap.<member>`), the rules that need the rest of the record by the registry; null clears them all.
 */
export const lwm2mBootstrapBody = z
  .object({
    securityMode: nullish(z.enum(LWM2M_SECURITY_MODES, { message: "must be nosec, psk or certificate" })),
    serverUri: nullish(serverUri),
    lifetime: nullish(
      z
        .number({ message: "must be a whole number of seconds" })
        .int("must be a whole number of seconds")
        .min(1, "at least 1 second")
        .max(MAX_LIFETIME, `at most ${MAX_LIFETIME} seconds`),
    ),
    binding: nullish(z.string().regex(BINDING, "must be an LwM2M binding: U, UQ, S, SQ, US, UQS, T, N, …")),
  })
  .strict()
  .nullish();

/** The settings as a device's detail view shows them: null where the deployment's default applies. */
export const lwm2mBootstrapRecord = z
  .object({ securityMode: f.strN, serverUri: f.strN, lifetime: f.intN, binding: f.strN })
  .describe("LwM2M bootstrap settings; null members take the deployment's defaults (IOT_LWM2M_BOOTSTRAP_*)");

/** The record member of an LwM2M device (cloudProtocol 3): `{lwm2mBootstrap}`, else nothing. */
export function lwm2mBootstrapOf(d: { cloudProtocol: number; deviceType: number; lwm2mBootstrap: string | null }) {
  if (d.cloudProtocol !== 3 || d.deviceType === 2) return {};
  let s: Record<string, unknown> = {};
  try {
    const parsed: unknown = d.lwm2mBootstrap ? JSON.parse(d.lwm2mBootstrap) : {};
    if (parsed && typeof parsed === "object") s = parsed as Record<string, unknown>;
  } catch {
    // A column that does not parse shows as the defaults.
  }
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    lwm2mBootstrap: {
      securityMode: str(s.securityMode),
      serverUri: str(s.serverUri),
      lifetime: typeof s.lifetime === "number" ? s.lifetime : null,
      binding: str(s.binding),
    },
  };
}
