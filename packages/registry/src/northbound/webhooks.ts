import type { Kysely, Selectable } from "kysely";
import type { Database, WebhookDeliveriesTable, WebhooksTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "../domain/caller.js";
import { paginate, type ListResult, type Page } from "../domain/list.js";
import { newestEventId, type EventType } from "./events.js";
import { checkWebhookUrl, type Resolver } from "./url-guard.js";

/** A webhook as answered: never its secret. */
export interface Webhook {
  id: number;
  tenantId: string;
  webhookName: string;
  url: string;
  eventTypes: EventType[];
  productIds: string[] | null;
  deviceIds: string[] | null;
  enabled: number;
  /** Why the service disabled it (null otherwise). */
  disabledReason: string | null;
  /** Epoch ms of the first of the current run of failed deliveries, null when the last one succeeded. */
  failingSince: number | null;
  /** The id of the last event it went through. */
  cursor: number;
  createAt: number;
  updateAt: number | null;
}

/** Fields of a new webhook; `secret` is the HMAC-SHA256 key (write-only). */
export interface WebhookInput {
  webhookName: string;
  url: string;
  eventTypes: EventType[];
  productIds?: string[] | null | undefined;
  deviceIds?: string[] | null | undefined;
  secret: string;
  enabled?: number | undefined;
}

/** What an edit may change; omitted fields stay. */
export type WebhookEdit = Partial<WebhookInput>;

/** How URLs are checked: the service admin's IOT_WEBHOOK_ALLOW_PRIVATE, and the resolver (tests pass their own). */
export interface UrlPolicy {
  allowPrivate: boolean;
  resolve?: Resolver | undefined;
}

/** A delivery's last status, as listed. */
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;

const parseList = (text: string | null): string[] | null => (text === null ? null : (JSON.parse(text) as string[]));
const listText = (list: string[] | null | undefined): string | null =>
  list === null || list === undefined || list.length === 0 ? null : JSON.stringify(list);

/** A stored row as the domain answers it (secret and lease left out). */
export function asWebhook(row: Selectable<WebhooksTable>): Webhook {
  return {
    id: Number(row.id),
    tenantId: row.tenantId,
    webhookName: row.webhookName,
    url: row.url,
    eventTypes: JSON.parse(row.eventTypes) as EventType[],
    productIds: parseList(row.productIds),
    deviceIds: parseList(row.deviceIds),
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince === null ? null : Number(row.failingSince),
    cursor: Number(row.cursor),
    createAt: Number(row.createAt),
    updateAt: row.updateAt === null ? null : Number(row.updateAt),
  };
}

/**
 * Creates a webhook of the caller's tenant. It gets the events committed from now on (its cursor starts at the
 * newest event). The URL is checked first (FORM_INVALID naming `url`, see checkWebhookUrl).
 */
export async function createWebhook(
  db: Kysely<Database>,
  caller: Caller,
  input: WebhookInput,
  policy: UrlPolicy,
  now = Date.now(),
): Promise<Webhook> {
  await checkWebhookUrl(input.url, policy.allowPrivate, policy.resolve);
  const cursor = await newestEventId(db);
  const row = await db
    .insertInto("webhooks")
    .values({
      tenantId: caller.tenantId,
      webhookName: input.webhookName,
      url: input.url,
      eventTypes: JSON.stringify(input.eventTypes),
      productIds: listText(input.productIds),
      deviceIds: listText(input.deviceIds),
      secret: input.secret,
      enabled: input.enabled ?? 1,
      disabledReason: null,
      failingSince: null,
      cursor,
      leaseOwner: null,
      leaseUntil: null,
      createAt: now,
      updateAt: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return getWebhook(db, caller, Number(row.id));
}

/** The caller's tenant's webhooks, newest first. */
export async function listWebhooks(db: Kysely<Database>, caller: Caller, page: Page): Promise<ListResult<Webhook>> {
  const r = await paginate(db.selectFrom("webhooks").selectAll().where("tenantId", "=", caller.tenantId), page, "id");
  return { ...r, items: r.items.map(asWebhook) };
}

/** One webhook of the caller's tenant; DATA_NOT_FOUND for unknown ids and other tenants' alike. */
export async function getWebhook(db: Kysely<Database>, caller: Caller, id: number): Promise<Webhook> {
  return asWebhook(await webhookRow(db, caller, id));
}

/** The stored row (with its secret), for deliveries; DATA_NOT_FOUND like getWebhook. */
export async function webhookRow(db: Kysely<Database>, caller: Caller, id: number): Promise<Selectable<WebhooksTable>> {
  const row = await db
    .selectFrom("webhooks")
    .selectAll()
    .where("tenantId", "=", caller.tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw fail.notFound("webhook");
  return row;
}

/**
 * Edits a webhook of the caller's tenant. Enabling it again clears why it was disabled and its failure run, so a
 * webhook the service disabled resumes from where it stopped (events older than the outbox retention are gone).
 */
export async function updateWebhook(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: WebhookEdit,
  policy: UrlPolicy,
  now = Date.now(),
): Promise<Webhook> {
  await webhookRow(db, caller, id);
  if (edit.url !== undefined) await checkWebhookUrl(edit.url, policy.allowPrivate, policy.resolve);
  const set = {
    ...(edit.webhookName !== undefined ? { webhookName: edit.webhookName } : {}),
    ...(edit.url !== undefined ? { url: edit.url } : {}),
    ...(edit.eventTypes !== undefined ? { eventTypes: JSON.stringify(edit.eventTypes) } : {}),
    ...(edit.productIds !== undefined ? { productIds: listText(edit.productIds) } : {}),
    ...(edit.deviceIds !== undefined ? { deviceIds: listText(edit.deviceIds) } : {}),
    ...(edit.secret !== undefined ? { secret: edit.secret } : {}),
    ...(edit.enabled !== undefined ? { enabled: edit.enabled } : {}),
    ...(edit.enabled === 1 ? { disabledReason: null, failingSince: null } : {}),
    updateAt: now,
  };
  await db.updateTable("webhooks").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  return getWebhook(db, caller, id);
}

/** Deletes webhooks of the caller's tenant (other tenants' and unknown ids are ignored), with their deliveries. */
export async function deleteWebhooks(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction().execute(async (tx) => {
    const own = await tx
      .selectFrom("webhooks")
      .select("id")
      .where("tenantId", "=", caller.tenantId)
      .where("id", "in", ids)
      .execute();
    const found = own.map((r) => Number(r.id));
    if (found.length === 0) return;
    await tx.deleteFrom("webhookDeliveries").where("webhookIntId", "in", found).execute();
    await tx.deleteFrom("webhooks").where("id", "in", found).execute();
  });
}

/** The deliveries of one webhook of the caller's tenant, newest first, each with its last status. */
export async function listDeliveries(
  db: Kysely<Database>,
  caller: Caller,
  webhookId: number,
  page: Page,
  filter: { status?: string | undefined } = {},
): Promise<ListResult<WebhookDelivery>> {
  await webhookRow(db, caller, webhookId);
  let q = db
    .selectFrom("webhookDeliveries")
    .selectAll()
    .where("tenantId", "=", caller.tenantId)
    .where("webhookIntId", "=", webhookId);
  if (filter.status) q = q.where("status", "=", filter.status);
  return paginate(q, page, "id");
}
