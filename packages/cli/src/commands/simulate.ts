import { CliError } from "../client.js";
import { apiUrl, loggedIn, type CommandContext } from "../context.js";
import { runLoad, type LoadStats } from "../simulate/load.js";
import { SIM_PROTOCOLS } from "../simulate/protocols.js";
import type { SimContext } from "../simulate/sim-protocol.js";
import { simDevices, simProduct } from "../simulate/sim-records.js";

const line = (s: LoadStats) =>
  `sent ${s.sent}  ok ${s.ok}  failed ${s.failed}  latency p50 ${s.p50.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms`;

/** What `iot simulate` takes. */
export interface SimulateOptions {
  protocol: string;
  devices: number;
  rate: number;
  seconds?: number | undefined;
  target?: string | undefined;
  registryToken?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * `iot simulate --protocol <p> --devices N --rate R [--seconds S] [--target URL]`: finds or creates the product
 * `sim-<p>` and N devices `sim-<p>-<i>` (with what the protocol's rules need), then sends R messages a second through
 * the protocol's adapter, printing counts and latency percentiles every second and a summary at the end (JSON with
 * --json). Answers false when any message failed (the CLI exits 1).
 */
export async function simulate(ctx: CommandContext, o: SimulateOptions): Promise<boolean> {
  const protocol = SIM_PROTOCOLS.get(o.protocol);
  if (!protocol) throw new CliError(`--protocol must be one of ${[...SIM_PROTOCOLS.keys()].join(", ")}`);
  if (o.devices < 1 || o.devices > (protocol.maxDevices ?? Infinity))
    throw new CliError(`--devices must be 1 to ${protocol.maxDevices ?? "any number"} for ${protocol.name}`);
  if (o.rate < 1) throw new CliError("--rate must be at least 1");
  const client = loggedIn(ctx);
  const name = `sim-${protocol.name}`;
  const apiHost = new URL(apiUrl(ctx)).hostname;
  const target = o.target ?? protocol.defaultTarget.replace("{host}", apiHost);
  const productID = await simProduct(client, name, protocol.cloudProtocol);
  const sim: SimContext = { client, productID, target, registryToken: o.registryToken };
  const prepared = await protocol.prepare?.(sim);
  const devices = await simDevices(client, productID, `${name}-`, o.devices, (i) => protocol.deviceBody(i, prepared));
  const sender = await protocol.open(sim, devices, prepared);
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
      ctx.io.out(`${JSON.stringify({ protocol: protocol.name, target, devices: devices.length, ...stats })}\n`);
    else
      ctx.io.out(
        `${protocol.name} → ${target}, ${devices.length} devices: ${line(stats)}${stats.firstError ? ` (first failure: ${stats.firstError})` : ""}\n`,
      );
    return stats.failed === 0;
  } finally {
    await sender.close();
  }
}
