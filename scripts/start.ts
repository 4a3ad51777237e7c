/**
 * `pnpm start`: the whole fleet on this machine — the central node (registry,
 * gRPC, REST API) and every adapter as separate processes. Ctrl-C or SIGTERM
 * stops them all; if one dies, the rest are stopped and the exit code is 1.
 */
import { runFleet } from "./run-fleet.js";

await runFleet();
