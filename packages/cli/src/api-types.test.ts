import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiTypesSource } from "./api-types-source.js";

describe("the CLI's generated API types", () => {
  it("are what openapi-typescript makes of the API's current OpenAPI document (run `pnpm --filter @iot/cli generate`)", async () => {
    const committed = readFileSync(join(import.meta.dirname, "api-types.ts"), "utf8");
    expect(await apiTypesSource()).toBe(committed);
  });
});
