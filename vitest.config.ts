import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/**/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most files wait on sockets and
    // child processes rather than compute, so two run side by side without starving each other.
    maxWorkers: 2,
  },
});
