import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** One operation of an OpenAPI document: its method, path template and success answers by status. */
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

interface Document {
  paths: Record<string, Record<string, { responses: Operation["responses"] }>>;
}

/**
 * Checks real answers of the API against its own OpenAPI document (tests only): finds the operation of a request,
 * validates the body with ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) and records which operations were checked.
 */
export class OpenApiCheck {
  private readonly ops: Operation[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** `METHOD /api/v1/template` of every operation checked with a success answer. */
  readonly checked = new Set<string>();

  constructor(doc: unknown) {
    addFormats.default(this.ajv);
    for (const [template, methods] of Object.entries((doc as Document).paths))
      for (const [method, op] of Object.entries(methods)) {
        const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\}/g, "[^/]+");
        this.ops.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), ...op });
      }
    // Literal paths first: `/devices_export` before `/devices/{id}` would never clash, but `/a/b` must beat `/a/{id}`.
    this.ops.sort((a, b) => a.template.split("{").length - b.template.split("{").length);
  }

  /** Every operation of the document, as `METHOD /path`. */
  get all(): string[] {
    return this.ops.map((o) => `${o.method} ${o.template}`).sort();
  }

  /**
   * The problems of one answer: none when its status is one the operation documents as success and its body matches
   * that status's schema for its content type. Records the operation as checked when there are none.
   */
  problems(method: string, url: string, status: number, contentType: string | null, body: unknown): string[] {
    const path = new URL(url, "http://x").pathname;
    const op = this.ops.find((o) => o.method === method && o.pattern.test(path));
    if (!op) return [`${method} ${path}: no operation in the document`];
    const name = `${op.method} ${op.template}`;
    const documented = op.responses[String(status)];
    if (!documented || status >= 300) return [`${name}: status ${status} is not a documented success`];
    const content = documented.content;
    if (!content) return body === null ? this.ok(name) : [`${name}: a body where the document says none`];
    const type = (contentType ?? "").split(";")[0]!.trim();
    const media = content[type];
    if (!media?.schema) return [`${name}: content type ${type} is not documented (${Object.keys(content).join(", ")})`];
    const key = `${name} ${status} ${type}`;
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile(media.schema)));
    if (validate(body)) return this.ok(name);
    return (validate.errors ?? []).map(
      (e) => `${name}: ${e.instancePath || "(body)"} ${e.message ?? ""} ${JSON.stringify(e.params)}`,
    );
  }

  private ok(name: string): string[] {
    this.checked.add(name);
    return [];
  }
}
