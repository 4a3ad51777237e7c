/**
 * dependency-cruiser's settings for `pnpm deps:graph` (scripts/import-graph.ts): TypeScript sources, type-only
 * imports counted, and the workspace packages (`@iot/*`) resolved through their package.json `exports` to their
 * sources, so an import of another package is drawn as an arrow between packages.
 */
export default {
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "types", "default"],
      extensions: [".ts", ".js", ".mjs"],
      mainFields: ["module", "main", "types"],
    },
  },
};
