import { describe } from "vitest";
import { smokeRunsOfShard } from "./bench-smoke.js";

describe("benchmarks, smoke shard 2 (see bench-smoke.ts)", () => {
  smokeRunsOfShard(2);
});
