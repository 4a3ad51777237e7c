/**
 * `pnpm start`: the whole fleet on this machine — the central node (registry,
 * gRPC, REST API) and every adapter as separate processes. Ctrl-C or SIGTERM
 * stops them all; if one dies, the rest are stopped and the exit code is 1.
 */
import { startFleet, type Fleet } from "./fleet.js";

let fleet: Fleet | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  stopping = true;
  await fleet?.stop();
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

try {
  fleet = await startFleet(process.env, { echo: true });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
for (const p of [fleet.central, ...fleet.adapters]) {
  p.child.once("exit", (code) => {
    if (stopping) return;
    process.stderr.write(`${p.name} stopped unexpectedly (exit code ${code}); stopping the fleet\n`);
    void shutdown(1);
  });
}
process.stdout.write(
  [
    "Fleet is up:",
    `  REST API   ${fleet.central.urls.api}/api/v1   (health: ${fleet.central.urls.api}/api/v1/health)`,
    `  gRPC       ${fleet.central.urls.grpc}   (adapters)`,
    ...fleet.adapters.flatMap((a) => Object.entries(a.urls).map(([k, v]) => `  ${k.padEnd(10)} ${v}   (${a.name})`)),
    "Press Ctrl-C to stop.",
    "",
  ].join("\n"),
);
