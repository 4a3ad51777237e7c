import type { Kysely } from "kysely";
import { appendEvents, type NewEvent } from "../northbound/events.js";
import type { Database } from "../store/schema.js";
import type { UplinkAnswer } from "../store/store-hooks.js";
import { commandResult, type PublishStatus } from "./publish-status.js";

/**
 * MQTT 5.0 request/response (MQTT 5.0 §4.10): a stored uplink carrying correlation data on a topic is the answer to
 * its device's oldest command still waiting for that key (the command's response topic and correlation data, see
 * `answerKey`). The answer's payload (UTF-8 text) becomes the command's `result` (publishResult in REST) and the
 * command stops waiting, so a second answer is a plain uplink; its publishStatus stays what the delivery made it
 * (the PUBACK settles that, and a group task's progress with it). Each settled command gets a `command_result` event
 * carrying the answer. Runs inside the uplinks' batch transaction (StoreHooks.uplinkAnswers): the command is settled
 * exactly when its answer is stored.
 */
export async function settleAnswers(
  trx: Kysely<Database>,
  answers: readonly UplinkAnswer[],
  now: number,
): Promise<void> {
  const events: NewEvent[] = [];
  for (const a of answers) {
    const result = Buffer.from(a.payload.buffer, a.payload.byteOffset, a.payload.byteLength).toString("utf8");
    const log = await trx
      .updateTable("controlLogs")
      .set({ result, updateAt: now, awaitingAnswer: null })
      .where("id", "=", (eb) =>
        eb
          .selectFrom("controlLogs")
          .select("id")
          .where("deviceIntId", "=", a.deviceIntId)
          .where("awaitingAnswer", "=", a.answerKey)
          .orderBy("id")
          .limit(1),
      )
      .returning(["id", "tenantId", "deviceIntId", "topic", "publishStatus"])
      .executeTakeFirst();
    if (log) events.push(commandResult(log, log.publishStatus as PublishStatus, result, now));
  }
  await appendEvents(trx, events, now);
}
