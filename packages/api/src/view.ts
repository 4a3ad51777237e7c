import type { MiddlewareHandler } from "hono";
import type { AppDeps, Env } from "./deps.js";
import { headerOf } from "./request-body.js";

/** Languages the `…Label` fields come in. */
export type Lang = "en" | "zh";

/** How records are shaped for this request: the deployment's form and the caller's language. */
export interface View {
  form: "1" | "2";
  lang: Lang;
  /** Form 2 device details: `<host>:<port>` of each device listener. */
  brokers: Record<string, string>;
  /**
   * Whether records carry their secrets (device and gateway `token`, LoRa keys, certificate `key`): true for
   * admins and operators, false for viewers and before a caller is known (least privilege).
   */
  secrets: boolean;
}

/** Picks the label language from Accept-Language (`zh…` → Chinese, else English). */
function langOf(acceptLanguage: string | undefined): Lang {
  const first = (acceptLanguage ?? "").split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("zh") ? "zh" : "en";
}

/** Puts the View in the context for serializers. */
export function viewMiddleware(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    c.set("view", {
      form: deps.form,
      lang: langOf(headerOf(c, "accept-language")),
      brokers: deps.brokers,
      secrets: false,
    });
    await next();
  };
}
