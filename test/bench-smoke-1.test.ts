import { describe } from "vitest";
import { smokeRunsOfShard } from "./bench-smoke.js";

describe("benchmarks, smoke shard 1 (see bench-smoke.ts)", () => {
  smokeRunsOfShard(1);
});
