import { z } from "zod";

/** What the OpenAPI document says of one operation. */
export interface OperationDoc {
  method: "get" | "post" | "put" | "delete";
  /** Hono-style path under /api/v1, e.g. `/devices/:id`. */
  path: string;
  /** Unique across the document: the method name a generated client gives the operation. */
  operationId: string;
  summary: string;
  tag: string;
  body?: z.ZodType | undefined;
  /** A body the handler reads itself, by media type (an upload). */
  rawBody?: Record<string, z.ZodType> | undefined;
  query?: z.ZodObject | undefined;
  /** The success body (absent with 204). */
  response?: z.ZodType | undefined;
  /** Media type of the success body when not JSON. */
  responseType?: string | undefined;
  status: number;
  open?: boolean | undefined;
}

/** A zod schema as JSON Schema: `input` for what a client sends, `output` for what the API answers. */
const jsonSchema = (s: z.ZodType, io: "input" | "output" = "input") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const errorBody = {
  type: "object",
  required: ["errorCode", "message"],
  properties: {
    errorCode: { type: "string" },
    message: { type: "string" },
    errors: { type: "object", additionalProperties: { type: "string" } },
  },
};

/**
 * Collects every operation as routes are declared, and renders the OpenAPI
 * 3.1 document from the very zod schemas that validate the requests.
 */
export class ApiDocs {
  private readonly ops: OperationDoc[] = [];

  add(op: OperationDoc): void {
    this.ops.push(op);
  }

  /** The OpenAPI 3.1 document of every declared operation. */
  document(info: { title: string; version: string; description?: string }) {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of this.ops) {
      const path = `/api/v1${op.path.replace(/:(\w+)/g, "{$1}")}`;
      const params = [
        ...[...op.path.matchAll(/:(\w+)/g)].map((m) => ({
          name: m[1],
          in: "path",
          required: true,
          schema: { type: "integer" },
        })),
        ...Object.entries(op.query?.shape ?? {}).map(([name, s]) => ({
          name,
          in: "query",
          required: !(s as z.ZodType).safeParse(undefined).success,
          schema: jsonSchema(s as z.ZodType),
        })),
      ];
      (paths[path] ??= {})[op.method] = {
        operationId: op.operationId,
        summary: op.summary,
        tags: [op.tag],
        ...(op.open ? { security: [] } : {}),
        ...(params.length ? { parameters: params } : {}),
        ...(op.body
          ? {
              requestBody: {
                required: true,
                content: { "application/json": { schema: jsonSchema(op.body) } },
              },
            }
          : {}),
        ...(op.rawBody
          ? {
              requestBody: {
                required: true,
                content: Object.fromEntries(
                  Object.entries(op.rawBody).map(([type, s]) => [type, { schema: jsonSchema(s) }]),
                ),
              },
            }
          : {}),
        responses: {
          [op.status]: {
            description: op.response ? "Success" : "Done, empty body",
            ...(op.response
              ? { content: { [op.responseType ?? "application/json"]: { schema: jsonSchema(op.response, "output") } } }
              : {}),
          },
          "400": {
            description: "FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST",
            content: { "application/json": { schema: errorBody } },
          },
          ...(op.open
            ? {}
            : {
                "401": { description: "AUTH_FAILED", content: { "application/json": { schema: errorBody } } },
                "403": { description: "PERMISSION_DENIED", content: { "application/json": { schema: errorBody } } },
              }),
          "404": { description: "DATA_NOT_FOUND", content: { "application/json": { schema: errorBody } } },
        },
      };
    }
    return {
      openapi: "3.1.0",
      info,
      // Relative: the document is served by the API it describes, so clients resolve paths against where they got it.
      servers: [{ url: "/" }],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "Token from POST /api/v1/login" },
          appKey: {
            type: "http",
            scheme: "basic",
            description: "Application key: appID as user, appToken as password",
          },
        },
      },
      security: [{ bearer: [] }, { appKey: [] }],
      paths,
    };
  }
}
