/**
 * Arbitraries from the API's own OpenAPI document: every declared operation, request bodies generated from their
 * JSON schemas (objects, strings with length and pattern, integers, numbers, booleans, null, enums, anyOf, arrays)
 * and query strings from the declared parameters, so the REST fuzz target and the security test need no hand list.
 */
import fc from "fast-check";

/** The parts of a JSON schema the API's document uses. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
}

/** One declared operation. */
export interface Operation {
  readonly method: string;
  /** The OpenAPI path, `{name}` for each path parameter, `/api/v1` included. */
  readonly path: string;
  readonly query: readonly { name: string; required: boolean; schema: Schema }[];
  readonly pathParams: readonly string[];
  readonly body?: Schema;
  /** Whether the operation declares a security requirement (every route but the open ones). */
  readonly secured: boolean;
}

interface Document {
  security?: unknown[];
  paths: Record<string, Record<string, OperationObject>>;
}
interface OperationObject {
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

/** Every operation of an OpenAPI document. */
export function operationsOf(document: unknown): Operation[] {
  const doc = document as Document;
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const security = op.security ?? doc.security ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        query: params
          .filter((p) => p.in === "query")
          .map((p) => ({ name: p.name, required: p.required ?? false, schema: p.schema ?? {} })),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        ...(op.requestBody?.content?.["application/json"]?.schema
          ? { body: op.requestBody.content["application/json"].schema }
          : {}),
        secured: security.length > 0,
      });
    }
  return ops;
}

/** Values valid for `schema` (as far as these keywords go), depth-limited. */
export function valueOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueOf(s, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      if (schema.pattern) {
        try {
          return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 500));
        } catch {
          // a pattern fast-check cannot generate from: any string of the right length instead
        }
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 60) });
    case "integer":
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -(2 ** 31)),
        max: Math.min(schema.maximum ?? 1e6, 2 ** 31),
      });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return depth > 3
        ? fc.constant([])
        : fc.array(valueOf(schema.items ?? {}, depth + 1), {
            minLength: schema.minItems ?? 0,
            maxLength: Math.min(schema.maxItems ?? 4, 4),
          });
    case "object": {
      if (depth > 3 || !schema.properties)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const required = schema.required ?? [];
      const props = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, valueOf(s, depth + 1)]));
      return fc.record(props, { requiredKeys: required.filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
