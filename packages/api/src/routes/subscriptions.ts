import { z } from "zod";
import { addSubscription, getDevice, listSubscriptions, removeSubscriptions } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { subscription } from "../forms/subscriptions.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { topicFilterField } from "./policies.js";
import { listOf } from "../forms/common.js";
import { subscriptionRecord } from "../forms/subscriptions.js";

/** A topic filter and a QoS of 0 or 1 (default 1; digit strings allowed). */
const subscriptionBody = z.strictObject({ topic: topicFilterField, qos: codeField([0, 1]).optional() });

/** Proxy subscriptions: topics the adapter subscribes a device to on its behalf. */
export function subscriptionRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const router = new ApiRouter(docs, "Device subscriptions");
  // Another tenant's or an unknown device answers 404 before its body is judged.
  router.app.use("/devices/:id/subscriptions", async (c, next) => {
    await getDevice(db, c.get("caller"), idParam(c));
    await next();
  });
  return router
    .post(
      "/devices/:id/subscriptions",
      {
        summary:
          "Subscribe a device to a topic filter (DATA_EXISTED for a topic it has); applies at once to a live device",
        body: subscriptionBody,
        response: subscriptionRecord,
      },
      async (c, { body }) => {
        const added = await addSubscription(db, c.get("caller"), idParam(c), body);
        await deps.live.subscriptionsChanged(idParam(c)).catch(deps.logError);
        return subscription(added);
      },
    )
    .get(
      "/devices/:id/subscriptions",
      { summary: "Proxy subscriptions of a device", query: listQuery({}), response: listOf(subscriptionRecord) },
      async (c, { query }) =>
        list(await listSubscriptions(db, c.get("caller"), idParam(c), pageFrom(query)), subscription),
    )
    .delete(
      "/devices/:id/subscriptions",
      { summary: "Remove proxy subscriptions of a device", query: idsQuery },
      async (c, { query }) => {
        await removeSubscriptions(db, c.get("caller"), idParam(c), idsFrom(query));
        await deps.live.subscriptionsChanged(idParam(c)).catch(deps.logError);
      },
    ).app;
}
