import { describe } from "vitest";
import { smokeRunsOfShard } from "./bench-smoke.js";

describe("benchmarks, smoke shard 3 (see bench-smoke.ts)", () => {
  smokeRunsOfShard(3);
});
