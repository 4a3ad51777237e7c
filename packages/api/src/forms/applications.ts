import { z } from "zod";
import { ROLES, type Application } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

/** An application key record; `appToken` only in the create answer. */
export const applicationRecord = z.object({
  id: f.int,
  appID: f.str,
  appToken: f.str.optional(),
  appName: f.str,
  role: z.enum(ROLES),
  description: f.strN,
  enable: f.int,
  expiresAt: f.date,
  createAt: f.date,
  updateAt: f.date,
  userIntID: f.int,
  tenantID: f.str,
});

/**
 * An application key as answered: never its token or hash. The token is
 * added by the create answer only (`appToken`), the one time it is shown.
 */
export function application(a: Application, appToken?: string): z.output<typeof applicationRecord> {
  return {
    id: a.id,
    appID: a.appId,
    ...(appToken !== undefined ? { appToken } : {}),
    appName: a.appName,
    role: a.role,
    description: a.description,
    enable: a.enable,
    expiresAt: formatDate(a.expiresAt),
    createAt: formatDate(a.createAt),
    updateAt: formatDate(a.updateAt),
    userIntID: a.userIntId,
    tenantID: a.tenantId,
  };
}
