import { tokenClaimsOf, type TokenClaims } from "@iot/registry";
import { sign, verify } from "hono/jwt";

/** The one algorithm signed and accepted: a token naming another (`none` included) is refused. */
const ALG = "HS256";

/** Signs claims as a compact HS256 JWT (hono/jwt) with the service's token secret. */
export function signToken(claims: TokenClaims, secret: string): Promise<string> {
  return sign({ ...claims }, secret, ALG);
}

/** Most verified tokens remembered (a few per active user; the oldest is forgotten first). */
const VERIFIED_MAX = 1024;

/**
 * Tokens whose signature and claims were verified, with the secret they were verified with: what a signature says
 * never changes, so a caller sending one token with every request (a client at 1,000 commands a second) costs one
 * signature check and one JSON parse, not one per request. Expiry is still checked at every use; whether the user
 * may still use it is `callerFromClaims`'s to check (it reads the user row each time). Only verified tokens go in,
 * so forged ones cannot crowd it.
 */
const verified = new Map<string, { secret: string; claims: Readonly<TokenClaims> }>();

/**
 * The claims of a token this service signed (HS256 with `secret`) that has not expired; null for any other:
 * tampered, signed with another secret or algorithm, expired, or not carrying the claims the service issues.
 */
export async function verifyToken(token: string, secret: string): Promise<TokenClaims | null> {
  const known = verified.get(token);
  const claims = known?.secret === secret ? known.claims : await verifiedClaims(token, secret);
  if (!claims || claims.exp * 1000 <= Date.now()) return null;
  if (!known) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, { secret, claims });
  }
  return claims;
}

/** The claims of a token with a valid signature (and unexpired, as hono/jwt checks `exp`); null when not. */
async function verifiedClaims(token: string, secret: string): Promise<Readonly<TokenClaims> | null> {
  const payload = await verify(token, secret, ALG).catch(() => null);
  const claims = tokenClaimsOf(payload);
  return claims ? Object.freeze(claims) : null;
}
