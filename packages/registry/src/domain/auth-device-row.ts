import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** The device columns every credential check reads: one query shape for every kind of credentials. */
export function selectAuthDevice(db: Kysely<Database>) {
  return db
    .selectFrom("devices as d")
    .innerJoin("products as p", "p.id", "d.productIntId")
    .select([
      "d.id",
      "d.tenantId",
      "d.deviceId",
      "d.deviceName",
      "d.token",
      "d.blocked",
      "d.authType",
      "d.deviceType",
      "d.productIntId",
      "d.gatewayProtocol",
      "d.gateway",
      "d.modBusIndex",
      "d.autoSub",
      "d.lora",
      "d.loraSession",
      "d.lwm2mBootstrap",
      "p.productId",
      "p.cloudProtocol",
    ]);
}

/** A device as the credential checks see it (see selectAuthDevice). */
export type AuthDeviceRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectAuthDevice>["executeTakeFirst"]>>>;
