/**
 * `pnpm start:cluster [nodes=2]`: several central nodes over the one PostgreSQL database IOT_DATABASE_URL names, on
 * API ports IOT_API_PORT, +1, … and gRPC ports IOT_GRPC_PORT, +1, … (8080 and 50051 by default), and every adapter
 * given all their gRPC addresses, so killing a node moves its adapters to another (docs/scale-out-adapters.md).
 * Stops as `pnpm start` does.
 */
import { runFleet } from "./run-fleet.js";

const nodes = Number(process.argv[2] ?? 2);
const url = process.env.IOT_DATABASE_URL ?? "";
if (!Number.isSafeInteger(nodes) || nodes < 1 || nodes > 16) {
  process.stderr.write(`start:cluster: the node count must be a whole number from 1 to 16, got ${process.argv[2]}\n`);
  process.exit(1);
}
if (!/^postgres(ql)?:\/\//i.test(url)) {
  process.stderr.write(
    "start:cluster: set IOT_DATABASE_URL to a postgres:// URL (several central nodes share one PostgreSQL database)\n",
  );
  process.exit(1);
}
await runFleet({ nodes });
