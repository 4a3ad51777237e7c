import { answer, type ApiClient } from "../client.js";
import { SIM_TOPIC } from "./sim-protocol.js";

/** How many uplinks on the simulated topic the API lists for devices named `<prefix>…`. */
export async function storedCount(client: ApiClient, prefix: string): Promise<number> {
  const r = await answer(
    client.GET("/api/v1/device_events", {
      params: { query: { deviceName_like: prefix, topic_like: SIM_TOPIC, _limit: "1" } },
    }),
  );
  return r.meta.count;
}

/**
 * Waits until the API lists `expected` uplinks more than `before` for devices named `<prefix>…`, or until the count
 * has not grown for `quietMs` (an adapter stores an acknowledged message within moments); answers how many more it
 * lists. A target that acknowledged messages but is not the fleet's adapter shows as fewer than expected.
 */
export async function awaitStored(
  client: ApiClient,
  prefix: string,
  before: number,
  expected: number,
  o: { intervalMs?: number; quietMs?: number } = {},
): Promise<number> {
  let stored = (await storedCount(client, prefix)) - before;
  let grewAt = Date.now();
  while (stored < expected && Date.now() - grewAt < (o.quietMs ?? 3000)) {
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 200));
    const now = (await storedCount(client, prefix)) - before;
    if (now > stored) grewAt = Date.now();
    stored = now;
  }
  return stored;
}
