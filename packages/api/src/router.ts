import { Hono, type Context } from "hono";
import { z } from "zod";
import { RegistryError } from "@iot/registry";
import type { ApiDocs, OperationDoc } from "./docs.js";
import type { Env } from "./deps.js";
import { bodyOf } from "./params.js";
import { operationIdOf } from "./operation-id.js";

/** A declared operation: its documentation doubles as its validation. */
export interface RouteSpec<
  B extends z.ZodType | undefined,
  Q extends z.ZodObject | undefined,
  R extends z.ZodType | undefined = undefined,
> {
  summary: string;
  body?: B;
  query?: Q;
  /**
   * The success body in the deployment's form (the record the serializers of forms/ return): the handler must
   * return its type (or a Response of its own), the document describes it and the response test validates every real
   * answer against it. Omitted only when no body is sent (204, or a 201 with only a Location).
   */
  response?: R;
  /** How the success body is sent when it is not JSON (e.g. `text/csv` of an export file, `text/event-stream`). */
  responseType?: string;
  /**
   * A body the handler reads itself (an upload), by media type: described in the document, not validated here.
   * Exclusive with `body`.
   */
  rawBody?: Record<string, z.ZodType>;
  /** Success status: 200, 201, 202 or 204 (204 sends no body). */
  status?: 200 | 201 | 202 | 204;
  /** True for the few operations that need no caller (health, login). */
  open?: boolean;
  /** OpenAPI operationId when the one derived from the method and path reads badly (see operationIdOf). */
  operationId?: string;
}

type Input<B, Q> = {
  body: B extends z.ZodType ? z.infer<B> : undefined;
  query: Q extends z.ZodObject ? z.infer<Q> : undefined;
};

/** What a handler answers: the declared success record (or a Response it builds itself). */
type Result<R> = R extends z.ZodType ? z.output<R> | Response : unknown;

type Handler<B, Q, R> = (c: Context<Env>, input: Input<B, Q>) => Result<R> | Promise<Result<R>>;

/** Validates the query string against `schema`: PARAMETER_INVALID names each bad parameter. */
function queryOf<Q extends z.ZodObject>(c: Context, schema: Q): z.infer<Q> {
  const parsed = schema.safeParse(c.req.query());
  if (parsed.success) return parsed.data;
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "query")] ??= issue.message;
  throw new RegistryError("PARAMETER_INVALID", errors);
}

/**
 * Declares routes of one resource: each is registered on Hono and in the
 * OpenAPI document at once, its body and query validated by the declared
 * schemas, and its result sent as JSON with the declared status.
 */
export class ApiRouter {
  readonly app = new Hono<Env>();
  constructor(
    private readonly docs: ApiDocs,
    private readonly tag: string,
  ) {}

  private add<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, R extends z.ZodType | undefined>(
    method: OperationDoc["method"],
    path: string,
    spec: RouteSpec<B, Q, R>,
    handler: Handler<B, Q, R>,
  ): this {
    const status = spec.status ?? (method === "post" ? 201 : method === "delete" ? 204 : 200);
    this.docs.add({
      method,
      path,
      operationId: spec.operationId ?? operationIdOf(method, path),
      summary: spec.summary,
      tag: this.tag,
      body: spec.body,
      rawBody: spec.rawBody,
      query: spec.query,
      response: spec.response,
      responseType: spec.responseType,
      status,
      open: spec.open,
    });
    this.app.on(method.toUpperCase(), path, async (c) => {
      const input = {
        body: spec.body ? await bodyOf(c, spec.body) : undefined,
        query: spec.query ? queryOf(c, spec.query) : undefined,
      } as Input<B, Q>;
      const result = await handler(c, input);
      if (result instanceof Response) return result;
      if (status === 204) return c.body(null, 204);
      return c.json(result as object, status);
    });
    return this;
  }

  get<Q extends z.ZodObject | undefined = undefined, R extends z.ZodType | undefined = undefined>(
    path: string,
    spec: RouteSpec<undefined, Q, R>,
    h: Handler<undefined, Q, R>,
  ) {
    return this.add("get", path, spec, h);
  }
  post<B extends z.ZodType | undefined = undefined, R extends z.ZodType | undefined = undefined>(
    path: string,
    spec: RouteSpec<B, undefined, R>,
    h: Handler<B, undefined, R>,
  ) {
    return this.add("post", path, spec, h);
  }
  put<B extends z.ZodType | undefined = undefined, R extends z.ZodType | undefined = undefined>(
    path: string,
    spec: RouteSpec<B, undefined, R>,
    h: Handler<B, undefined, R>,
  ) {
    return this.add("put", path, spec, h);
  }
  delete<Q extends z.ZodObject | undefined = undefined, R extends z.ZodType | undefined = undefined>(
    path: string,
    spec: RouteSpec<undefined, Q, R>,
    h: Handler<undefined, Q, R>,
  ) {
    return this.add("delete", path, spec, h);
  }
}
