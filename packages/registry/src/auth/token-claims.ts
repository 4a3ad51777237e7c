/**
 * What a bearer token says about its holder. The registry issues the claims at login and resolves them to a caller
 * at every request (`callerFromClaims`); the token itself (a signed, expiring JWT) is the REST API's to sign and
 * verify, as the API is where callers present it.
 */
export interface TokenClaims {
  /** User int id. */
  sub: number;
  tenantId: string;
  role: string;
  /** Expiry, epoch seconds. */
  exp: number;
  /**
   * The user's token generation when issued: a password or role change moves the user on to the next one,
   * which ends the tokens of earlier generations. Absent in tokens issued before generations existed (= 0).
   */
  gen?: number;
  /** A random id of this token, so one token can outlive its generation (the one that changed its own password). */
  jti?: string;
}

/** The claims in a verified token's payload, or undefined when they are not the shape this service issues. */
export function tokenClaimsOf(payload: unknown): TokenClaims | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const c = payload as Partial<Record<keyof TokenClaims, unknown>>;
  if (typeof c.exp !== "number" || typeof c.sub !== "number" || typeof c.tenantId !== "string") return undefined;
  if (typeof c.role !== "string") return undefined;
  if (c.gen !== undefined && !Number.isSafeInteger(c.gen)) return undefined;
  if (c.jti !== undefined && typeof c.jti !== "string") return undefined;
  return payload as TokenClaims;
}
