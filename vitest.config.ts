import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most files wait on sockets and
    // child processes rather than compute, so two run side by side without starving each other.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // The end-to-end files start processes and take longest: their project's name sorts first, so they are
        // dispatched first and the short package files fill the end of the run instead of one long file.
        test: { name: "e2e", include: ["test/**/*.test.ts"], exclude: ["**/node_modules/**", "test/soak.test.ts"] },
      },
      {
        extends: true,
        // The 3-minute soak, the longest file by far: its project's name sorts before "e2e", so it starts first and
        // runs in one worker while the other takes the end-to-end files.
        test: { name: "3-minute soak", include: ["test/soak.test.ts"] },
      },
      {
        extends: true,
        // The packages' own tests run one file after another in each worker's process (isolate: false): a fresh
        // process per file, with its imports loaded again, cost more than most of these files' tests (about a
        // second a file of the 200). They share no state between files: no module mocks, no environment changes,
        // and a spy on a process-wide object (a metric, a store's connection) is put back before the next test.
        test: {
          name: "unit",
          include: ["packages/**/src/**/*.test.ts"],
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
        },
      },
    ],
  },
});
