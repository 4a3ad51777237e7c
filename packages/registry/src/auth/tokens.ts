import { createHmac, timingSafeEqual } from "node:crypto";

/** What a bearer token says about its holder. */
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

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");
const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

/** Signs claims as a compact HS256 JWT with the service secret. */
export function signToken(claims: TokenClaims, secret: string): string {
  const body = `${HEADER}.${b64url(JSON.stringify(claims))}`;
  return `${body}.${b64url(createHmac("sha256", secret).update(body).digest())}`;
}

/** Most verified tokens remembered (a few per active user; the oldest is forgotten first). */
const VERIFIED_MAX = 1024;

/**
 * Tokens whose signature and claims were verified, with the secret they were verified with: what a signature says
 * never changes, so a caller sending one token with every request (a client at 1,000 commands a second) costs one
 * HMAC and one JSON parse, not one per request. Expiry is still checked at every use; whether the user may still use
 * it is the caller's to check (`callerFromToken` reads the user row each time). Only verified tokens go in, so
 * forged ones cannot crowd it.
 */
const verified = new Map<string, { secret: string; claims: Readonly<TokenClaims> }>();

/**
 * Verifies signature and expiry; returns the claims or null. Only tokens this
 * service signed (HS256 with its own secret) are accepted.
 */
export function verifyToken(token: string, secret: string, nowMs = Date.now()): TokenClaims | null {
  const known = verified.get(token);
  const claims = known?.secret === secret ? known.claims : verifySignedClaims(token, secret);
  if (!claims || claims.exp * 1000 <= nowMs) return null;
  if (!known) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, { secret, claims });
  }
  return claims;
}

/** The claims of a token signed with `secret`, checked for shape but not for expiry; null when not. */
function verifySignedClaims(token: string, secret: string): Readonly<TokenClaims> | null {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return null;
  const expected = createHmac("sha256", secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2] ?? "", "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as TokenClaims;
    if (typeof claims.exp !== "number") return null;
    if (typeof claims.sub !== "number" || typeof claims.tenantId !== "string") return null;
    if (claims.gen !== undefined && !Number.isSafeInteger(claims.gen)) return null;
    if (claims.jti !== undefined && typeof claims.jti !== "string") return null;
    return Object.freeze(claims);
  } catch {
    return null;
  }
}
