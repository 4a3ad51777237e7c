import { z } from "zod";
import {
  createWebhook,
  deleteWebhooks,
  getWebhook,
  listDeliveries,
  listWebhooks,
  sendTestDelivery,
  updateWebhook,
  EVENT_TYPES,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { webhook, webhookDelivery } from "../forms/webhooks.js";
import { requireRole } from "../middleware/roles.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { webhookDeliveryRecord, webhookRecord } from "../forms/webhooks.js";

const webhookName = z.string().trim().min(1, "required").max(100, "at most 100 characters");
const url = z.string().trim().min(1, "required").max(2000, "at most 2000 characters");
const eventTypes = z
  .array(z.enum(EVENT_TYPES, { message: `must be among ${EVENT_TYPES.join(", ")}` }))
  .min(1, "name at least one event type")
  .max(EVENT_TYPES.length);
const idList = z.array(z.string().min(1).max(100)).max(1000, "at most 1000").nullish();
const secret = z.string().min(16, "at least 16 characters").max(200, "at most 200 characters");

const createBody = z.strictObject({
  webhookName,
  url,
  eventTypes,
  productIDs: idList,
  deviceIDs: idList,
  secret,
  enabled: codeField([0, 1]).optional(),
});

/** Edits may carry the whole record as answered; read-only fields are accepted and ignored. */
const editBody = z.looseObject({
  webhookName: webhookName.optional(),
  url: url.optional(),
  eventTypes: eventTypes.optional(),
  productIDs: idList,
  deviceIDs: idList,
  secret: secret.optional(),
  enabled: codeField([0, 1]).optional(),
});

const DELIVERY_STATUSES = ["delivered", "retrying", "failed"] as const;

/**
 * Webhooks (docs/northbound.md): admins of a tenant create, list, edit, test and delete them; the service delivers
 * the tenant's events to them (signed JSON POSTs). The secret is write-only. Other tenants' ids answer 404.
 */
export function webhookRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const policy = () => ({ allowPrivate: deps.webhooks?.allowPrivate ?? false, resolve: deps.webhooks?.resolve });
  return new ApiRouter(docs, "Webhooks")
    .get(
      "/webhooks",
      { summary: "List webhooks (admins)", query: listQuery({}), response: listOf(webhookRecord) },
      async (c, { query }) => list(await listWebhooks(db, requireRole(c, "admin"), pageFrom(query)), webhook),
    )
    .get(
      "/webhooks/:id",
      { summary: "Webhook detail (admins); never its secret", response: webhookRecord },
      async (c) => webhook(await getWebhook(db, requireRole(c, "admin"), idParam(c))),
    )
    .post(
      "/webhooks",
      {
        summary: "Create a webhook: url, eventTypes, optional productIDs/deviceIDs, secret (write-only), enabled",
        body: createBody,
        response: webhookRecord,
      },
      async (c, { body }) =>
        webhook(
          await createWebhook(
            db,
            requireRole(c, "admin"),
            { ...body, productIds: body.productIDs, deviceIds: body.deviceIDs },
            policy(),
          ),
        ),
    )
    .put(
      "/webhooks/:id",
      { summary: "Edit a webhook; enabled 1 clears why it was disabled", body: editBody, response: webhookRecord },
      async (c, { body }) =>
        webhook(
          await updateWebhook(
            db,
            requireRole(c, "admin"),
            idParam(c),
            {
              webhookName: body.webhookName,
              url: body.url,
              eventTypes: body.eventTypes,
              productIds: body.productIDs,
              deviceIds: body.deviceIDs,
              secret: body.secret,
              enabled: body.enabled,
            },
            policy(),
          ),
        ),
    )
    .post(
      "/webhooks/:id/test",
      {
        summary: "Send a test delivery now and answer what the receiver said",
        status: 200,
        operationId: "testWebhook",
        response: z.object({
          deliveryID: z.string(),
          delivered: z.union([z.literal(0), z.literal(1)]),
          httpStatus: z.number().int().nullable(),
          error: z.string().nullable(),
        }),
      },
      async (c) => {
        const r = await sendTestDelivery(db, requireRole(c, "admin"), idParam(c), {
          timeoutMs: deps.webhooks?.timeoutMs ?? 10_000,
          allowPrivate: deps.webhooks?.allowPrivate ?? false,
        });
        return {
          deliveryID: r.deliveryId,
          delivered: r.ok ? (1 as const) : (0 as const),
          httpStatus: r.httpStatus,
          error: r.error,
        };
      },
    )
    .get(
      "/webhooks/:id/deliveries",
      {
        summary: "List a webhook's deliveries with their last status",
        query: listQuery({ status: z.enum(DELIVERY_STATUSES).optional() }),
        operationId: "listWebhookDeliveries",
        response: listOf(webhookDeliveryRecord),
      },
      async (c, { query }) =>
        list(
          await listDeliveries(db, requireRole(c, "admin"), idParam(c), pageFrom(query), { status: query.status }),
          webhookDelivery,
        ),
    )
    .delete("/webhooks", { summary: "Delete webhooks", query: idsQuery }, async (c, { query }) => {
      await deleteWebhooks(db, requireRole(c, "admin"), idsFrom(query));
    }).app;
}
