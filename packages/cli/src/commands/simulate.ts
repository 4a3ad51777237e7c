import { dynamicCall, type ApiClient } from "../client.js";
import { apiUrl, loggedIn, type CommandContext } from "../context.js";
import { runLoad, type LoadStats } from "../simulate/load.js";
import { openSender, type SimDevice, type SimProtocol } from "../simulate/senders.js";

/** cloudProtocol of each simulated protocol's product. */
const CLOUD_PROTOCOL: Readonly<Record<SimProtocol, number>> = { mqtt: 1, coap: 2, http: 5 };
/** Where each adapter listens by default, on the API's host. */
const DEFAULT_PORT: Readonly<Record<SimProtocol, string>> = {
  mqtt: "mqtt://{host}:1883",
  coap: "coap://{host}:5683",
  http: "http://{host}:8081",
};

type Page<T> = { items: T[] };

/** The product `sim-<protocol>` and devices `sim-<protocol>-<i>`, i < n: reused when they exist, else created. */
async function simDevices(client: ApiClient, protocol: SimProtocol, n: number): Promise<SimDevice[]> {
  const name = `sim-${protocol}`;
  const products = (await dynamicCall(client, "GET", "/api/v1/products", {
    params: { query: { productName_like: name, _limit: 1000 } },
  })) as Page<{ productID: string; productName: string }>;
  const product =
    products.items.find((p) => p.productName === name) ??
    ((await dynamicCall(client, "POST", "/api/v1/products", {
      body: { productName: name, cloudProtocol: CLOUD_PROTOCOL[protocol] },
    })) as { productID: string });
  const existing = new Map<string, SimDevice & { deviceName: string }>();
  for (let page = 1; existing.size < n; page++) {
    const r = (await dynamicCall(client, "GET", "/api/v1/devices", {
      params: { query: { productID: product.productID, deviceName_like: `${name}-`, _limit: 1000, _page: page } },
    })) as Page<SimDevice & { deviceName: string }>;
    for (const d of r.items) existing.set(d.deviceName, d);
    if (r.items.length < 1000) break;
  }
  const devices: SimDevice[] = [];
  for (let i = 0; i < n; i++) {
    const deviceName = `${name}-${i}`;
    devices.push(
      existing.get(deviceName) ??
        ((await dynamicCall(client, "POST", "/api/v1/devices", {
          body: { productID: product.productID, deviceName, upLinkSystem: 1, authType: 1 },
        })) as SimDevice),
    );
  }
  return devices;
}

const line = (s: LoadStats) =>
  `sent ${s.sent}  ok ${s.ok}  failed ${s.failed}  latency p50 ${s.p50.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms`;

/**
 * `iot simulate --protocol <mqtt|coap|http> --devices N --rate R [--seconds S] [--target URL]`: creates or reuses N
 * devices and sends R messages a second through the protocol's adapter, printing counts and latency percentiles
 * every second and a summary at the end (JSON with --json). Exits 1 when any message failed.
 */
export async function simulate(
  ctx: CommandContext,
  o: { protocol: SimProtocol; devices: number; rate: number; seconds?: number; target?: string; signal?: AbortSignal },
): Promise<boolean> {
  if (!(o.protocol in CLOUD_PROTOCOL))
    throw new Error(`--protocol must be one of ${Object.keys(CLOUD_PROTOCOL).join(", ")}`);
  const client = loggedIn(ctx);
  const devices = await simDevices(client, o.protocol, o.devices);
  const apiHost = new URL(apiUrl(ctx)).hostname;
  const target = o.target ?? DEFAULT_PORT[o.protocol].replace("{host}", apiHost);
  const sender = await openSender(o.protocol, target, devices);
  try {
    const stats = await runLoad({
      devices,
      send: sender.send,
      rate: o.rate,
      seconds: o.seconds,
      signal: o.signal,
      tick: (s) => ctx.json || ctx.io.err(`${line(s)}\n`),
    });
    if (ctx.json)
      ctx.io.out(`${JSON.stringify({ protocol: o.protocol, target, devices: devices.length, ...stats })}\n`);
    else
      ctx.io.out(
        `${o.protocol} → ${target}, ${devices.length} devices: ${line(stats)}${stats.firstError ? ` (first failure: ${stats.firstError})` : ""}\n`,
      );
    return stats.failed === 0;
  } finally {
    await sender.close();
  }
}
