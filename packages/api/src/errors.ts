import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { RegistryError, type RegistryErrorCode } from "@iot/registry";

const httpStatus: Record<RegistryErrorCode, ContentfulStatusCode> = {
  FORM_INVALID: 400,
  DATA_EXISTED: 400,
  REFERENCED_ERROR: 400,
  PARAMETER_INVALID: 400,
  BAD_REQUEST: 400,
  AUTH_FAILED: 401,
  PERMISSION_DENIED: 403,
  DATA_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

/** The error body every failure answers: `{errorCode, message, errors?}`. */
export function errorResponse(c: Context, err: RegistryError) {
  return c.json(
    { errorCode: err.code, message: err.message, ...(err.errors ? { errors: err.errors } : {}) },
    httpStatus[err.code],
  );
}

/** Where the error handler reports: unexpected errors, and client aborts (no fault of ours: debug level). */
export interface ErrorLog {
  error: (err: unknown) => void;
  debug: (message: string, err: unknown) => void;
}

/**
 * True when reading the request failed because the client went away: Node's
 * `aborted` (ECONNRESET) of a request stream cut short, or a premature close.
 */
function isClientAbort(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ECONNRESET" && e.message === "aborted") return true;
    if (code === "ERR_STREAM_PREMATURE_CLOSE") return true;
  }
  return false;
}

/**
 * The app's one error handler: registry errors map to their status; a client
 * that aborted its request is logged at debug level and answered BAD_REQUEST
 * (nobody reads it); anything else is logged as an error and answered as
 * INTERNAL_ERROR with no internals.
 */
export function onError(log: ErrorLog) {
  return (err: Error, c: Context) => {
    if (err instanceof RegistryError) return errorResponse(c, err);
    if (isClientAbort(err)) {
      log.debug("client aborted the request", err);
      return errorResponse(c, new RegistryError("BAD_REQUEST", undefined, "Request aborted by the client"));
    }
    log.error(err);
    return errorResponse(c, new RegistryError("INTERNAL_ERROR"));
  };
}

/** Unknown paths answer 404 DATA_NOT_FOUND naming the url. */
export function notFound(c: Context) {
  return errorResponse(c, new RegistryError("DATA_NOT_FOUND", { url: c.req.path }, "Not found"));
}
