import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import { commandTopic } from "./command-payload.js";
import { commandStreamsOf } from "./command-streams.js";

/** What a command will be sent to: a device, or every member of a group (ids already known to be the caller's). */
export type CommandTarget = { deviceIntId: number } | { groupIntId: number };

/**
 * Checks a command's payload (and topic) now by the rules `publish` and `publishToGroup` apply when it is sent
 * (`commandTopic`: a data point payload against the product's command streams), so a scheduled command that could
 * never be sent is refused at creation: FORM_INVALID naming `payload.<dataPointID>` or `topic`; DATA_NOT_FOUND
 * when the target is gone. Each run is checked again (streams may change meanwhile).
 */
export async function checkCommand(
  db: Kysely<Database>,
  target: CommandTarget,
  payload: string,
  topic: string | undefined,
): Promise<void> {
  if ("deviceIntId" in target) {
    const device = await db
      .selectFrom("devices as d")
      .innerJoin("products as p", "p.id", "d.productIntId")
      .select(["d.productIntId", "d.deviceType", "p.cloudProtocol"])
      .where("d.id", "=", target.deviceIntId)
      .executeTakeFirst();
    if (!device) throw fail.notFound("device");
    commandTopic(await commandStreamsOf(db, device, device.deviceType === 2), payload, topic);
    return;
  }
  const product = await db
    .selectFrom("groups as g")
    .innerJoin("products as p", "p.id", "g.productIntId")
    .select(["g.productIntId", "p.cloudProtocol"])
    .where("g.id", "=", target.groupIntId)
    .executeTakeFirst();
  if (!product) throw fail.notFound("group");
  commandTopic(await commandStreamsOf(db, product, false), payload, undefined);
}
