import { answer, CliError, type ApiClient } from "../client.js";
import { apiUrl, loggedIn, type CommandContext } from "../context.js";
import { runLoad, type LoadStats } from "../simulate/load.js";
import { SIM_PROTOCOLS } from "../simulate/protocols.js";
import type { SimContext, SimProtocol } from "../simulate/sim-protocol.js";
import { awaitStored, storedCount } from "../simulate/stored-count.js";
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
 * --json), with how many of the acknowledged messages the fleet stored. Answers false when any message failed (the
 * CLI exits 1); throws when the fleet stored fewer than were acknowledged.
 */
export async function simulate(ctx: CommandContext, o: SimulateOptions): Promise<boolean> {
  const protocol = SIM_PROTOCOLS.get(o.protocol);
  if (!protocol) throw new CliError(`--protocol must be one of ${[...SIM_PROTOCOLS.keys()].join(", ")}`);
  if (o.devices < 1 || o.devices > (protocol.maxDevices ?? Infinity))
    throw new CliError(`--devices must be 1 to ${protocol.maxDevices ?? "any number"} for ${protocol.name}`);
  if (o.rate < 1) throw new CliError("--rate must be at least 1");
  const client = loggedIn(ctx);
  const name = `sim-${protocol.name}`;
  const target = o.target ?? (await defaultTarget(ctx, client, protocol));
  const productID = await simProduct(client, name, protocol.cloudProtocol);
  const sim: SimContext = { client, productID, target, registryToken: o.registryToken };
  const prepared = await protocol.prepare?.(sim);
  const devices = await simDevices(client, productID, `${name}-`, o.devices, (i) => protocol.deviceBody(i, prepared));
  const sender = await protocol.open(sim, devices, prepared);
  const storedBefore = protocol.confirmsStored ? 0 : await storedCount(client, `${name}-`);
  try {
    const stats = await runLoad({
      devices,
      send: sender.send,
      rate: o.rate,
      seconds: o.seconds,
      signal: o.signal,
      tick: (s) => ctx.json || ctx.io.err(`${line(s)}\n`),
    });
    // Counted by the fleet: an acknowledgement alone may come from another server listening at the target.
    const stored = protocol.confirmsStored ? stats.ok : await awaitStored(client, `${name}-`, storedBefore, stats.ok);
    if (ctx.json)
      ctx.io.out(`${JSON.stringify({ protocol: protocol.name, target, devices: devices.length, ...stats, stored })}\n`);
    else
      ctx.io.out(
        `${protocol.name} → ${target}, ${devices.length} devices: ${line(stats)}  stored ${stored}${stats.firstError ? ` (first failure: ${stats.firstError})` : ""}\n`,
      );
    if (stored < stats.ok)
      throw new CliError(
        `${target} acknowledged ${stats.ok} messages but the fleet stored ${stored}: is it this fleet's ${protocol.name} adapter? (--target)`,
      );
    return stats.failed === 0;
  } finally {
    await sender.close();
  }
}

/**
 * Where the protocol's adapter is: the address the fleet gives its devices (`GET /health` `brokers`, the Form 2
 * broker fields) for MQTT and CoAP, else the protocol's usual port on the API's host. Fails when the fleet gives no
 * usable address rather than guess one that another server may answer.
 */
async function defaultTarget(ctx: CommandContext, client: ApiClient, protocol: SimProtocol): Promise<string> {
  if (!protocol.broker) return protocol.defaultTarget.replace("{host}", new URL(apiUrl(ctx)).hostname);
  const { field, scheme } = protocol.broker;
  const health = await answer(client.GET("/api/v1/health"));
  const address = health.brokers[field];
  if (!address) throw new CliError(`the fleet gives devices no ${field} address (its listener is off): pass --target`);
  if (/:0$/.test(address))
    throw new CliError(`the fleet's ${field} is ${address}, a port picked at start it does not know: pass --target`);
  return `${scheme}://${address}`;
}
