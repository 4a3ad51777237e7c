// Builds the browser console (app/) into dist/, served by the central node at /console.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("./app"),
  base: "/console/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    chunkSizeWarningLimit: 400,
  },
});
