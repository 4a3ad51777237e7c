import { z } from "zod";
import { ROLES, type User } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

/** A user record. */
export const userRecord = z.object({
  id: f.int,
  username: f.str,
  email: f.strN,
  role: z.enum(ROLES),
  enable: f.int,
  serviceAdmin: z.boolean(),
  tenantID: f.str,
  createAt: f.date,
  updateAt: f.date,
});

/** A user as answered: never the password or its hash. */
export function user(u: User): z.output<typeof userRecord> {
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
