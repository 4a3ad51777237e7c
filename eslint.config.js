// One lint configuration for the workspace: typed rules from typescript-eslint that catch
// floating and misused promises, unused code and thrown non-errors. Formatting is Prettier's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "packages/proto/src/gen/**",
      "packages/cli/src/api-types.ts",
      "coverage/**",
      ".ci/out/**",
      "data/**",
      "packages/console/dist/**",
      "test/artifacts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            "*.js",
            ".dependency-cruiser.mjs",
            ".ci/*.mjs",
            "bench/event-loop-probe.mjs",
            "packages/adapters/lorawan/src/server/udp-thread-worker.mjs",
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-unused-expressions": "error",
      // Callbacks declared before the value they close over is assigned are fine.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      // Prettier wraps code at 120; this holds comments to it too (long strings, such as test names, may run on).
      "max-len": [
        "error",
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      // An async function without await is a fine way to return a promise from an interface method.
      "@typescript-eslint/require-await": "off",
      // Tests and protocol code read JSON of unknown shape; zod schemas and explicit checks guard real inputs.
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    files: ["**/*.test.ts", "test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The console reads API records by field name (both record forms), typed as plain records.
    files: ["packages/console/app/**/*.ts", "packages/console/app/**/*.tsx"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  { files: ["**/*.js", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
  { files: ["**/*.js", "**/*.mjs"], languageOptions: { globals: { process: "readonly", console: "readonly" } } },
);
