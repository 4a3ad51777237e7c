import type { Application } from "@iot/registry";
import { formatDate } from "./dates.js";

/**
 * An application key as answered: never its token or hash. The token is
 * added by the create answer only (`appToken`), the one time it is shown.
 */
export function application(a: Application, appToken?: string) {
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
