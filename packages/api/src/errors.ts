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
  PAYLOAD_TOO_LARGE: 413,
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

/**
 * The app's one error handler: registry errors map to their status; anything
 * else is logged and answered as INTERNAL_ERROR with no internals.
 */
export function onError(log: (err: unknown) => void) {
  return (err: Error, c: Context) => {
    if (err instanceof RegistryError) return errorResponse(c, err);
    log(err);
    return errorResponse(c, new RegistryError("INTERNAL_ERROR"));
  };
}

/** Unknown paths answer 404 DATA_NOT_FOUND naming the url. */
export function notFound(c: Context) {
  return errorResponse(c, new RegistryError("DATA_NOT_FOUND", { url: c.req.path }, "Not found"));
}
