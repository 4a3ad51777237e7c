import { sql, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { reusableInQuery } from "../store/reusable-query.js";
import { PUBLISH_STATUS } from "./publish-status.js";

/**
 * The unexpired issued commands of these devices and of the devices behind them when they are gateways, oldest
 * first. Read for every batch of opened sessions, thousands per second in a connect storm. The status is compared
 * as `+publish_status` so that SQLite finds the rows through the devices' index: with a plain comparison it read
 * every issued command of the service through `control_logs_issued` and kept those of the batch's devices, so each
 * batch cost as much as all the commands queued for offline devices (a group command to 100,000 of them, with its
 * hour of TTL, made every connect batch read 100,000 rows).
 */
export const pendingCommandsQuery = (db: Kysely<Database>, ids: number[], now: number) =>
  db
    .selectFrom("controlLogs as l")
    .innerJoin("devices as d", "d.id", "l.deviceIntId")
    .select([
      "l.id",
      "l.deviceIntId",
      "d.deviceId",
      "d.gateway",
      "l.topic",
      "l.payload",
      "l.qos",
      "l.expiresAt",
      "l.properties",
      "l.resumePacketId",
      "l.resumeReleased",
    ])
    .where("l.deviceIntId", "in", (eb) =>
      eb
        .selectFrom("devices")
        .select("id")
        .where((w) => w.or([w("id", "in", ids), w("gateway", "in", ids)])),
    )
    .where(sql<number>`+${sql.ref("l.publishStatus")}`, "=", PUBLISH_STATUS.issued)
    .where((eb) => eb.or([eb("l.expiresAt", "is", null), eb("l.expiresAt", ">", now)]))
    .orderBy("l.id");

/**
 * `pendingCommandsQuery` compiled once per IN-list length (see reusableInQuery), and run in queryIn's lengths only,
 * so a few SQLite statements serve every batch size: building it with kysely at each batch was 13 % of the central
 * node's CPU in a connect storm.
 */
export const pendingCommands = reusableInQuery(pendingCommandsQuery);
