import { dynamicCall } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecords } from "../output.js";

const COLUMNS = ["id", "msgTime", "deviceID", "deviceName", "topic", "payload"];

/**
 * `iot events [--device <id>] [--follow]`: the latest uplinks, oldest first; with --follow, then every new one as it
 * is stored (polled every `intervalMs`) until `signal` aborts (Ctrl-C).
 */
export async function events(
  ctx: CommandContext,
  o: { device?: number | undefined; follow?: boolean; limit?: number; intervalMs?: number; signal?: AbortSignal },
): Promise<void> {
  const client = loggedIn(ctx);
  const path = o.device === undefined ? "/api/v1/device_events" : "/api/v1/devices/{id}/events";
  const page = async (limit: number) =>
    (
      await dynamicCall(client, "GET", path, {
        params: { ...(o.device === undefined ? {} : { path: { id: o.device } }), query: { _limit: limit } },
      })
    ).items.reverse();
  const show = (items: Awaited<ReturnType<typeof page>>) => {
    if (ctx.json) for (const e of items) ctx.io.out(`${JSON.stringify(e)}\n`);
    else if (items.length > 0) printRecords(ctx.io, items, false, COLUMNS);
  };
  let seen = 0;
  const first = await page(o.limit ?? 20);
  show(first);
  seen = Math.max(seen, ...first.map((e) => e.id));
  while (o.follow && !o.signal?.aborted) {
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 1000));
    if (o.signal?.aborted) break;
    const fresh = (await page(1000)).filter((e) => e.id > seen);
    show(fresh);
    seen = Math.max(seen, ...fresh.map((e) => e.id));
  }
}
