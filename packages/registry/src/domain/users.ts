import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import { verifyPassword } from "../auth/passwords.js";
import { signToken, verifyToken } from "../auth/tokens.js";
import type { Caller, Role } from "./caller.js";

/** A successful login: the bearer token and who it belongs to. */
export interface LoginResult {
  token: string;
  userIntId: number;
  username: string;
  tenantId: string;
  role: Role;
  /** Epoch ms when the token stops working. */
  expiresAt: number;
}

/** A hash to compare against when the user does not exist, so timing doesn't tell. */
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/**
 * Checks a username (or e-mail) and password and issues a signed token valid
 * for `ttlSeconds`. Unknown users and wrong passwords fail alike.
 */
export async function login(
  db: Kysely<Database>,
  secret: string,
  credentials: { username: string; password: string },
  ttlSeconds: number,
  now = Date.now(),
): Promise<LoginResult> {
  const user = await db
    .selectFrom("users")
    .selectAll()
    .where((eb) => eb.or([eb("username", "=", credentials.username), eb("email", "=", credentials.username)]))
    .executeTakeFirst();
  const ok = await verifyPassword(credentials.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || user.enable !== 1) throw fail.auth("Username or password is wrong");
  const exp = Math.floor(now / 1000) + ttlSeconds;
  const token = signToken({ sub: user.id, tenantId: user.tenantId, role: user.role, exp }, secret);
  return { token, userIntId: user.id, username: user.username, tenantId: user.tenantId, role: user.role as Role, expiresAt: exp * 1000 };
}

/**
 * Resolves a bearer token to its caller. The user row is re-read so that a
 * disabled or deleted user loses access before the token expires.
 */
export async function callerFromToken(db: Kysely<Database>, secret: string, token: string): Promise<Caller> {
  const claims = verifyToken(token, secret);
  if (!claims) throw fail.auth("Token invalid or expired");
  const user = await db.selectFrom("users").selectAll().where("id", "=", claims.sub).executeTakeFirst();
  if (!user || user.enable !== 1 || user.tenantId !== claims.tenantId) throw fail.auth("Token invalid or expired");
  return { userIntId: user.id, username: user.username, tenantId: user.tenantId, role: user.role as Role, serviceAdmin: user.serviceAdmin === 1 };
}
