import { dynamicCall } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord, printRecords } from "../output.js";

/** The resources `list|get|create|delete` work on, with the columns their tables show. */
export const RESOURCES = {
  products: ["id", "productID", "productName", "cloudProtocol", "deviceCount"],
  devices: ["id", "deviceID", "deviceName", "productName", "deviceStatus", "deviceUsername"],
  groups: ["id", "groupID", "groupName", "productName", "deviceCount"],
} as const;

export type ResourceName = keyof typeof RESOURCES;

/** `iot <resource> list [--page --limit --like]`: one page, newest first; `--like` filters by name. */
export async function listResource(
  ctx: CommandContext,
  resource: ResourceName,
  o: { page?: number; limit?: number; like?: string },
): Promise<void> {
  const nameFilter = { products: "productName_like", devices: "deviceName_like", groups: "groupName_like" }[resource];
  const query = { _page: o.page ?? 1, _limit: o.limit ?? 20, ...(o.like ? { [nameFilter]: o.like } : {}) };
  const r = await dynamicCall(loggedIn(ctx), "GET", `/api/v1/${resource}` as const, { params: { query } });
  if (ctx.json) return ctx.io.out(`${JSON.stringify(r, null, 2)}\n`);
  printRecords(ctx.io, r.items, false, [...RESOURCES[resource]]);
  ctx.io.out(`page ${r.meta.page}, ${r.items.length} of ${r.meta.count}\n`);
}

/** `iot <resource> get <id>`: one record. */
export async function getResource(ctx: CommandContext, resource: ResourceName, id: number): Promise<void> {
  const r = await dynamicCall(loggedIn(ctx), "GET", `/api/v1/${resource}/{id}` as const, { params: { path: { id } } });
  printRecord(ctx.io, r, ctx.json);
}

/** `iot <resource> create key=value …`: the body's members (values parsed as JSON when they are JSON). */
export async function createResource(ctx: CommandContext, resource: ResourceName, pairs: string[]): Promise<void> {
  const body = Object.fromEntries(
    pairs.map((p) => {
      const i = p.indexOf("=");
      if (i < 1) throw new Error(`expected key=value, got "${p}"`);
      const raw = p.slice(i + 1);
      let value: unknown = raw;
      try {
        value = JSON.parse(raw);
      } catch {
        // a plain string
      }
      return [p.slice(0, i), value];
    }),
  );
  const r = await dynamicCall(loggedIn(ctx), "POST", `/api/v1/${resource}` as const, { body });
  printRecord(ctx.io, r, ctx.json);
}

/** `iot <resource> delete <id…>`. */
export async function deleteResource(ctx: CommandContext, resource: ResourceName, ids: number[]): Promise<void> {
  await dynamicCall(loggedIn(ctx), "DELETE", `/api/v1/${resource}`, { params: { query: { ids: ids.join(",") } } });
  if (ctx.json) ctx.io.out(`${JSON.stringify({ deleted: ids })}\n`);
  else ctx.io.out(`deleted ${ids.join(", ")}\n`);
}
