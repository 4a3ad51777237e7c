import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { UplinkRecord } from "../store/store.js";
import { PIPELINE_CURSOR_KEY } from "../store/pipeline-cursor-key.js";

/**
 * For tests: a QoS 1 uplink of the device on topic `telemetry` carrying `{"temp": temp}`, as an adapter hands it to
 * the store.
 */
export const telemetryUplink = (
  tenantId: string,
  deviceIntId: number,
  msgKey: string,
  temp: number,
  msgTime: number,
): UplinkRecord => ({
  msgKey,
  tenantId,
  deviceIntId,
  gatewayIntId: null,
  topic: "telemetry",
  payload: Buffer.from(JSON.stringify({ temp })),
  ip: null,
  qos: 1,
  msgTime,
});

/**
 * For tests: the pipeline's stored cursor and the newest stored uplink's id (equal once it went through them all).
 * Throws when either is missing, so that two missing values never compare equal.
 */
export async function cursorAndNewest(db: Kysely<Database>): Promise<{ cursor: number; newest: number }> {
  const newest = await db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirstOrThrow();
  const cursor = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", PIPELINE_CURSOR_KEY)
    .executeTakeFirstOrThrow();
  if (newest.id === null) throw new Error("no uplink is stored");
  return { cursor: Number(cursor.value), newest: Number(newest.id) };
}
