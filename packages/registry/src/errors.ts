/**
 * The registry's closed list of failure codes. They are the management API's
 * errorCode values; the HTTP and gRPC edges map them to wire statuses.
 */
export type RegistryErrorCode =
  | "FORM_INVALID"
  | "DATA_EXISTED"
  | "REFERENCED_ERROR"
  | "PARAMETER_INVALID"
  | "BAD_REQUEST"
  | "AUTH_FAILED"
  | "PERMISSION_DENIED"
  | "DATA_NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "TOO_MANY_REQUESTS"
  | "UNAVAILABLE"
  | "INTERNAL_ERROR";

const defaultMessages: Record<RegistryErrorCode, string> = {
  FORM_INVALID: "Form invalid",
  DATA_EXISTED: "Data existed",
  REFERENCED_ERROR: "Referenced error",
  PARAMETER_INVALID: "Parameter invalid",
  BAD_REQUEST: "Bad request",
  AUTH_FAILED: "Authentication failed",
  PERMISSION_DENIED: "Permission denied",
  DATA_NOT_FOUND: "Data not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  PAYLOAD_TOO_LARGE: "Payload too large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  TOO_MANY_REQUESTS: "Too many requests",
  UNAVAILABLE: "Service unavailable",
  INTERNAL_ERROR: "Internal error",
};

/** A failure the caller can act on; `errors` names the offending fields. */
export class RegistryError extends Error {
  override readonly name = "RegistryError";
  constructor(
    readonly code: RegistryErrorCode,
    readonly errors?: Record<string, string>,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(message ?? defaultMessages[code], options);
  }
}

/** Shorthands for the common failures. */
export const fail = {
  form: (errors: Record<string, string>) => new RegistryError("FORM_INVALID", errors),
  exists: (field: string, what = "already exists") => new RegistryError("DATA_EXISTED", { [field]: what }),
  notFound: (what: string) => new RegistryError("DATA_NOT_FOUND", { [what]: "not found" }),
  auth: (message?: string) => new RegistryError("AUTH_FAILED", undefined, message),
  denied: (message?: string) => new RegistryError("PERMISSION_DENIED", undefined, message),
};

/** True when a database error is a unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return (
    e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || /UNIQUE constraint failed/.test(e?.message ?? "")
  );
}
