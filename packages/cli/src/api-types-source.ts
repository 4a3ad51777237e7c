import openapiTS, { astToString } from "openapi-typescript";
import { openApiDocument } from "@iot/api";

/** The header of the generated file. */
const HEADER = "// Generated from the API's OpenAPI document by `pnpm --filter @iot/cli generate`: do not edit.\n";

/** The text of src/api-types.ts as the API's current document generates it (see scripts/generate-api-types.ts). */
export async function apiTypesSource(): Promise<string> {
  const doc = (await openApiDocument()) as Parameters<typeof openapiTS>[0];
  return HEADER + astToString(await openapiTS(doc));
}
