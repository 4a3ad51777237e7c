import { z } from "zod";
import { clearRetained, getDevice, listRetained, RETAINED_DIRECTIONS } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list, listOf } from "../forms/common.js";
import { retained, retainedRecord } from "../forms/retained.js";
import { idParam, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { topicFilterField } from "./policies.js";

const direction = z.enum(RETAINED_DIRECTIONS, { error: "must be command or uplink" }).optional();

/** A retained message's topic: relative, without wildcards (a retained message has one concrete topic). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what a topic must not contain
const concreteTopic = z.string().regex(/^[^/#+$\u0000][^#+\u0000]{0,1023}$/, "a relative topic without wildcards");

/**
 * A device's retained messages (docs/devices/mqtt.md, "Retained messages"): its retained commands (desired state)
 * and retained uplinks (last reported values), listed and cleared. Clearing pushes the change to the device's live
 * sessions at once, as a retained message with an empty payload would.
 */
export function retainedRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const router = new ApiRouter(docs, "Device retained messages");
  // Another tenant's or an unknown device answers 404 before its query is judged.
  router.app.use("/devices/:id/retained", async (c, next) => {
    await getDevice(db, c.get("caller"), idParam(c));
    await next();
  });
  return router
    .get(
      "/devices/:id/retained",
      {
        summary: "Retained messages of a device (newest first): its desired state and its last reported values",
        query: listQuery({ direction, topic: topicFilterField.optional() }).omit({ _sort: true }),
        response: listOf(retainedRecord),
      },
      async (c, { query }) =>
        list(
          await listRetained(
            db,
            c.get("caller"),
            idParam(c),
            { direction: query.direction, topic: query.topic },
            pageFrom(query),
          ),
          retained,
        ),
    )
    .delete(
      "/devices/:id/retained",
      {
        summary: "Clear a device's retained message on a topic (of one direction, or both); applies to a live device",
        query: z.object({ topic: concreteTopic, direction }),
      },
      async (c, { query }) => {
        await clearRetained(db, c.get("caller"), idParam(c), query.topic, query.direction);
        await deps.live.retainedChanged([idParam(c)]).catch(deps.logError);
      },
    ).app;
}
