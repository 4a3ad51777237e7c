import type { User } from "@iot/registry";
import { formatDate } from "./dates.js";

/** A user as answered: never the password or its hash. */
export function user(u: User) {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    role: u.role,
    enable: u.enable,
    serviceAdmin: u.serviceAdmin === 1,
    tenantID: u.tenantId,
    createAt: formatDate(u.createAt),
    updateAt: formatDate(u.updateAt),
  };
}
