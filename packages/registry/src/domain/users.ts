import { randomBytes } from "node:crypto";
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, UsersTable } from "../store/schema.js";
import { fail, isUniqueViolation } from "../errors.js";
import { hashPassword, verifyPassword } from "../auth/passwords.js";
import type { TokenClaims } from "../auth/token-claims.js";
import type { Caller, Role } from "./caller.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { findTenant } from "./tenants.js";
import { reusableQuery } from "../store/reusable-query.js";

/** A successful login: the claims of the caller's bearer token (the API signs them) and who it belongs to. */
export interface LoginResult {
  claims: TokenClaims;
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
 * Checks a username (or e-mail) and password and issues the claims of a token valid
 * for `ttlSeconds`. Unknown users and wrong passwords fail alike.
 */
export async function login(
  db: Kysely<Database>,
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
  const jti = randomBytes(12).toString("base64url");
  const claims = { sub: user.id, tenantId: user.tenantId, role: user.role, exp, gen: user.tokenGeneration, jti };
  return {
    claims,
    userIntId: user.id,
    username: user.username,
    tenantId: user.tenantId,
    role: user.role as Role,
    expiresAt: exp * 1000,
  };
}

/** What a token check reads of its user, at every request; compiled once (see reusableQuery). */
const tokenUser = reusableQuery((db: Kysely<Database>, id: number) =>
  db
    .selectFrom("users")
    .select(["id", "username", "tenantId", "role", "serviceAdmin", "enable", "tokenGeneration", "tokenKept"])
    .where("id", "=", id),
);

/**
 * Resolves the claims of a verified, unexpired bearer token to its caller. The user row (read anyway) is
 * checked so that a disabled or deleted user loses access before the token
 * expires, and so do tokens of an earlier generation than the user's (issued
 * before a password or role change) but the one kept by that change.
 */
export async function callerFromClaims(db: Kysely<Database>, claims: TokenClaims): Promise<Caller> {
  const [user] = await tokenUser(db, claims.sub);
  if (!user || user.enable !== 1 || user.tenantId !== claims.tenantId) throw fail.auth("Token invalid or expired");
  const current = (claims.gen ?? 0) === user.tokenGeneration;
  if (!current && (claims.jti === undefined || claims.jti !== user.tokenKept))
    throw fail.auth("Token ended by a password or role change");
  return {
    userIntId: user.id,
    username: user.username,
    tenantId: user.tenantId,
    role: user.role as Role,
    serviceAdmin: user.serviceAdmin === 1,
    tokenId: claims.jti,
  };
}

/** The roles, most powerful first. */
export const ROLES = ["admin", "operator", "viewer"] as const satisfies readonly Role[];

const RANK: Record<Role, number> = { admin: 3, operator: 2, viewer: 1 };

/** True when `role` may do everything `min` may (admin ⊃ operator ⊃ viewer). */
export const roleAtLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];

/** A user as answered to callers: never the password hash. */
export type User = Omit<Selectable<UsersTable>, "passwordHash" | "role" | "tokenGeneration" | "tokenKept"> & {
  role: Role;
};

/** Fields of a new user. `tenantId` omitted = the caller's tenant. */
export interface UserInput {
  username: string;
  /** Plain text; stored as a scrypt hash only. */
  password: string;
  role: Role;
  tenantId?: string | undefined;
  email?: string | null | undefined;
}

/** Fields an edit may change; everything else about a user is fixed. */
export interface UserEdit {
  /** Fixed at creation: a different one is FORM_INVALID. */
  username?: string | undefined;
  /** Fixed at creation: a different one is FORM_INVALID. */
  tenantId?: string | undefined;
  role?: Role | undefined;
  email?: string | null | undefined;
  password?: string | undefined;
  enable?: number | undefined;
}

const userColumns = [
  "id",
  "tenantId",
  "username",
  "email",
  "role",
  "serviceAdmin",
  "enable",
  "createAt",
  "updateAt",
] as const;

const asUser = (row: Omit<User, "role"> & { role: string }): User => ({ ...row, role: row.role as Role });

/** DATA_EXISTED naming `username` or `email` when another user already has it. */
async function assertUnique(
  db: Kysely<Database>,
  fields: { username?: string | undefined; email?: string | null | undefined },
  exceptId?: number,
): Promise<void> {
  for (const field of ["username", "email"] as const) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    let q = db.selectFrom("users").select("id").where(field, "=", value);
    if (exceptId !== undefined) q = q.where("id", "!=", exceptId);
    if (await q.executeTakeFirst()) throw fail.exists(field);
  }
}

/**
 * Creates a user. A tenant admin creates users in its own tenant only
 * (another tenantID is PERMISSION_DENIED); the service administrator may name
 * any existing tenant (an unknown one is FORM_INVALID). Usernames and e-mails
 * are unique across the service (DATA_EXISTED naming the field).
 */
export async function createUser(
  db: Kysely<Database>,
  caller: Caller,
  input: UserInput,
  now = Date.now(),
): Promise<User> {
  const tenantId = input.tenantId ?? caller.tenantId;
  if (tenantId !== caller.tenantId) {
    if (!caller.serviceAdmin) throw fail.denied("Users may only be created in your own tenant");
    if (!(await findTenant(db, tenantId))) throw fail.form({ tenantID: "no such tenant" });
  }
  await assertUnique(db, input);
  const passwordHash = await hashPassword(input.password);
  try {
    const row = await db
      .insertInto("users")
      .values({
        tenantId,
        username: input.username,
        email: input.email ?? null,
        passwordHash,
        role: input.role,
        serviceAdmin: 0,
        enable: 1,
        createAt: now,
        updateAt: null,
      })
      .returning(userColumns)
      .executeTakeFirstOrThrow();
    return asUser(row);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await assertUnique(db, input); // a concurrent create took the name: say which field
    throw err;
  }
}

/** Lists the users of the caller's tenant, newest first, optionally filtered by username. */
export async function listUsers(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { usernameLike?: string | undefined } = {},
): Promise<ListResult<User>> {
  let q = db.selectFrom("users").select(userColumns).where("tenantId", "=", caller.tenantId);
  if (filter.usernameLike) q = q.where(ilike("username", filter.usernameLike));
  const r = await paginate(q, page, "id", ["username", "updateAt"]);
  return { ...r, items: r.items.map(asUser) };
}

/** One user of the caller's tenant; DATA_NOT_FOUND otherwise (also for other tenants' ids). */
export async function getUser(db: Kysely<Database>, caller: Caller, id: number): Promise<User> {
  const row = await db
    .selectFrom("users")
    .select(userColumns)
    .where("tenantId", "=", caller.tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw fail.notFound("user");
  return asUser(row);
}

/**
 * Edits a user of the caller's tenant. Nobody may change their own role or
 * disable themselves, and the service administrator always stays an enabled
 * admin, so a tenant can never lock itself out (FORM_INVALID naming the field).
 * A disabled user's tokens stop working at once; a new password or role ends
 * the user's other tokens (the caller's own token survives changing its own
 * password). The user must log in again.
 */
export async function updateUser(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: UserEdit,
  now = Date.now(),
): Promise<User> {
  const user = await getUser(db, caller, id);
  if (edit.username !== undefined && edit.username !== user.username)
    throw fail.form({ username: "cannot be changed" });
  if (edit.tenantId !== undefined && edit.tenantId !== user.tenantId)
    throw fail.form({ tenantID: "cannot be changed" });
  const protectedUser = user.id === caller.userIntId || user.serviceAdmin === 1;
  const who = user.id === caller.userIntId ? "your own account" : "the service administrator";
  if (protectedUser && edit.role !== undefined && edit.role !== user.role)
    throw fail.form({ role: `cannot change the role of ${who}` });
  if (protectedUser && edit.enable !== undefined && edit.enable !== 1)
    throw fail.form({ enable: `cannot disable ${who}` });
  if (edit.email) await assertUnique(db, { email: edit.email }, id);
  const endsTokens = edit.password !== undefined || (edit.role !== undefined && edit.role !== user.role);
  // Changing your own password keeps the token you did it with; every other token of the user ends.
  const kept = user.id === caller.userIntId ? (caller.tokenId ?? null) : null;
  const set = {
    ...(edit.role !== undefined ? { role: edit.role } : {}),
    ...(edit.email !== undefined ? { email: edit.email } : {}),
    ...(edit.enable !== undefined ? { enable: edit.enable } : {}),
    ...(edit.password !== undefined ? { passwordHash: await hashPassword(edit.password) } : {}),
    ...(endsTokens ? { tokenGeneration: sql<number>`token_generation + 1`, tokenKept: kept } : {}),
    updateAt: now,
  };
  await db.updateTable("users").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  return getUser(db, caller, id);
}

/**
 * Deletes users of the caller's tenant; other tenants' and unknown ids are
 * ignored. Deleting yourself or the service administrator is FORM_INVALID
 * naming `ids`, and then nothing is deleted. Their tokens stop working at once.
 */
export async function deleteUsers(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction().execute(async (tx) => {
    const own = await tx
      .selectFrom("users")
      .select(["id", "serviceAdmin"])
      .where("tenantId", "=", caller.tenantId)
      .where("id", "in", ids)
      .execute();
    if (own.some((u) => u.id === caller.userIntId)) throw fail.form({ ids: "cannot delete your own account" });
    if (own.some((u) => u.serviceAdmin === 1)) throw fail.form({ ids: "cannot delete the service administrator" });
    if (own.length > 0)
      await tx
        .deleteFrom("users")
        .where(
          "id",
          "in",
          own.map((u) => u.id),
        )
        .execute();
  });
}
