import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { reusableQuery } from "../store/reusable-query.js";
import { hasCommandStreams } from "./command-streams.js";

/** A device of the tenant as a command needs it, with its product's protocol and whether it has command streams. */
const commandDevice = (db: Kysely<Database>, tenantId: string) =>
  db
    .selectFrom("devices as d")
    .innerJoin("products as p", "p.id", "d.productIntId")
    .select(["d.id", "d.deviceId", "d.gateway", "d.productIntId", "d.deviceType", "p.cloudProtocol"])
    .select(hasCommandStreams)
    .where("d.tenantId", "=", tenantId);

/** `commandDevice` by id, compiled once (see reusableQuery): read at every command. */
export const commandDeviceById = reusableQuery((db: Kysely<Database>, tenantId: string, id: number) =>
  commandDevice(db, tenantId).where("d.id", "=", id),
);

/** `commandDevice` by deviceID, compiled once (see reusableQuery): read at every command naming its device so. */
export const commandDeviceNamed = reusableQuery((db: Kysely<Database>, tenantId: string, deviceId: string) =>
  commandDevice(db, tenantId).where("d.deviceId", "=", deviceId),
);
