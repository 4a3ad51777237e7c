import { hash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { queryIn } from "../store/query-in.js";
import { reusableInQuery } from "../store/reusable-query.js";
import { admitted, sameSecret, sharedRefusal } from "./admit-device.js";
import { selectAuthDevice, type AuthDeviceRow } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { denier, type Refusal } from "./auth-refusal.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";
import { policiesOfDevices } from "./policies.js";
import { retainedOfDevices } from "./retained.js";
import { subscriptionsOfDevices } from "./subscriptions.js";

/**
 * What a session's credentials were, as a string the adapter echoes back: `t:` and a digest of the username and
 * token (so neither travels), or `c:` and the certificate record's id. When the session is re-announced after an
 * outage, `sessionRevocations` recomputes it from the current records: a different value means they changed.
 */
export function tokenStamp(username: string, token: string): string {
  // One-shot hash of the same bytes as update(username), update("\0"), update(token): no Hash object per connect.
  return `t:${hash("sha256", `${username}\0${token}`, "base64url").slice(0, 22)}`;
}

/** The devices of a batch's usernames (IN list), compiled once per list length (see reusableInQuery). */
const devicesByUsername = reusableInQuery((db: Kysely<Database>, usernames: string[]) =>
  selectAuthDevice(db).select("d.deviceUsername").where("d.deviceUsername", "in", usernames),
);

type TokenCredentials = Extract<DeviceCredentials, { kind: "token" }>;

const UNKNOWN_TOKEN: Refusal = ["BAD_CREDENTIALS", "unknown username or wrong token"];

/** The checks of token credentials against the device of their username (undefined: no device has it). */
function tokenRefusal(row: AuthDeviceRow | undefined, c: TokenCredentials): Refusal | undefined {
  if (!row || !sameSecret(c.token, row.token)) return UNKNOWN_TOKEN;
  if (row.authType !== 1) return ["NOT_ALLOWED", "device authenticates with a certificate"];
  if (c.clientId && c.clientId !== row.deviceId) return ["NOT_ALLOWED", "client id is not the device's deviceID"];
  return undefined;
}

/**
 * authType 1: deviceUsername (unique service-wide) and token; a client id, when sent, must be the deviceID. One
 * request is a batch of one: the same checks and queries as AuthenticateBatch's (authenticateTokens).
 */
export async function tokenAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: TokenCredentials,
  now: number,
): Promise<AuthOutcome> {
  const [outcome] = await authenticateTokens(db, [{ ...req, credentials: c }], now);
  return outcome!;
}

/** A request with token credentials (MQTT username and password, HTTP Basic, …): nearly all of a connect storm. */
export type TokenAuthRequest = AuthRequest & { credentials: TokenCredentials };

/**
 * Checks the token credentials of several requests, answering each as authenticateDevice would (refusals logged the
 * same way), in request order. The devices, their topic rules and their proxy subscriptions are read with one query
 * each for the whole batch (IN lists, see queryIn) instead of three per device: the per-device statements were most
 * of the central node's SQLite time in a connect storm.
 */
export async function authenticateTokens(
  db: Kysely<Database>,
  reqs: readonly TokenAuthRequest[],
  now = Date.now(),
): Promise<AuthOutcome[]> {
  const rows = await queryIn(
    reqs.map((r) => r.credentials.username),
    (usernames) => devicesByUsername(db, usernames),
  );
  const byUsername = new Map(rows.map((r) => [r.deviceUsername, r]));
  const checked = reqs.map((req) => {
    const row = byUsername.get(req.credentials.username);
    const refusal = tokenRefusal(row, req.credentials) ?? (row && sharedRefusal(row, req.protocol));
    return { req, row, refusal };
  });
  const admissible = checked.flatMap((x) => (x.row && !x.refusal ? [x.row.id] : []));
  const [policies, subscriptions, retained] = await Promise.all([
    policiesOfDevices(db, admissible),
    subscriptionsOfDevices(db, admissible),
    retainedOfDevices(db, admissible),
  ]);
  const outcomes: AuthOutcome[] = [];
  for (const { req, row, refusal } of checked) {
    const c = req.credentials;
    // Refusals one after another: each writes its connect log, and a batch of them must not crowd the connection.
    if (refusal || !row) outcomes.push(await denier(db, req, row, null, now)(...(refusal ?? UNKNOWN_TOKEN)));
    else
      outcomes.push(
        admitted(
          row,
          tokenStamp(c.username, c.token),
          policies.get(row.id) ?? [],
          subscriptions.get(row.id) ?? [],
          retained.get(row.id),
        ),
      );
  }
  return outcomes;
}
