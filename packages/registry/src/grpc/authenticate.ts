/**
 * Checking devices' credentials and admitting their sessions: the same answers whether an adapter asks with a unary
 * Authenticate(Batch) call or on its Connect stream.
 */
import { randomUUID } from "node:crypto";
import {
  AuthResult,
  AuthenticateResponseSchema,
  create,
  type AuthenticateRequest,
  type AuthenticateResponse,
} from "@iot/proto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { authenticateDevice } from "../domain/device-auth.js";
import { authenticateTokens, type TokenAuthRequest } from "../domain/token-auth.js";
import type { AuthOutcome } from "../domain/auth-outcome.js";
import { tenantLimitsOf, type TenantLimits } from "../domain/tenants.js";
import { RegistryError } from "../errors.js";
import type { SessionRows } from "../cluster/session-rows.js";
import type { Database } from "../store/schema.js";
import type { SessionTable, TenantConnectionsElsewhere } from "../sessions/session-table.js";
import { admittedAnswer, authOutcomeToProto, credentialsFromProto } from "./convert.js";
import { mapConcurrently } from "./map-concurrently.js";
import { openMqttSessions } from "./mqtt-session-answers.js";
import type { SessionWrites } from "../sessions/mqtt-session-writes.js";

/** What authenticating needs of the registry (the Connect stream's dependencies have it). */
export interface AuthDeps {
  db: Kysely<Database>;
  sessions: SessionTable;
  logger: Logger;
  adapterRows?: Pick<SessionRows, "tenantConnectionsElsewhere"> | undefined;
  /** Shared transactions for persistent MQTT session writes; without it each batch writes its own. */
  mqttSessionWrites?: SessionWrites | undefined;
}

/** A device whose credentials passed, with what admitting it needs; or the final answer when they did not. */
type Verified =
  | { answer: AuthenticateResponse }
  | {
      outcome: Extract<AuthOutcome, { ok: true }>;
      limits: TenantLimits;
      elsewhere: TenantConnectionsElsewhere | undefined;
    };

/** Devices of one AuthenticateBatch with other than token credentials checked at once (see mapConcurrently). */
const VERIFY_CONCURRENCY = 8;

/**
 * The asynchronous part of Authenticate(Batch), for every request in order: credentials (token credentials of the
 * whole batch together, see authenticateTokens), the tenants' limits (one query for the batch) and, for a tenant with
 * a connection limit, its connections on other nodes.
 */
async function verify(reqs: readonly AuthenticateRequest[], deps: AuthDeps): Promise<Verified[]> {
  const asked = reqs.map((req) => ({
    protocol: req.protocol,
    credentials: credentialsFromProto(req.credentials),
    clientIp: req.clientIp,
  }));
  const outcomes = new Array<AuthOutcome | undefined>(reqs.length);
  const tokens: TokenAuthRequest[] = [];
  const tokenAt: number[] = [];
  const others: number[] = [];
  asked.forEach((a, i) => {
    if (a.credentials?.kind === "token") {
      tokens.push({ ...a, credentials: a.credentials });
      tokenAt.push(i);
    } else if (a.credentials) others.push(i);
  });
  if (tokens.length > 0) (await authenticateTokens(deps.db, tokens)).forEach((o, k) => (outcomes[tokenAt[k]!] = o));
  await mapConcurrently(others, VERIFY_CONCURRENCY, async (i) => {
    const a = asked[i]!;
    outcomes[i] = await authenticateDevice(deps.db, { ...a, credentials: a.credentials! });
  });
  const tenants = outcomes.flatMap((o) => (o?.ok ? [o.device.tenantId] : []));
  const limitsOf = await tenantLimitsOf(deps.db, tenants);
  // Several nodes: the connections of tenants with a limit on the other nodes count too.
  const limited = outcomes.flatMap((o) =>
    o?.ok && limitsOf.get(o.device.tenantId)!.maxConnections > 0 ? [o.device] : [],
  );
  const elsewhereOf = limited.length > 0 ? await deps.adapterRows?.tenantConnectionsElsewhere(limited) : undefined;
  return outcomes.map((outcome): Verified => {
    if (!outcome)
      return {
        answer: create(AuthenticateResponseSchema, {
          result: AuthResult.NOT_ALLOWED,
          message: "credential kind not supported",
        }),
      };
    if (!outcome.ok)
      return { answer: create(AuthenticateResponseSchema, { ...authOutcomeToProto(outcome), sessionId: "" }) };
    const { tenantId, deviceIntId } = outcome.device;
    return { outcome, limits: limitsOf.get(tenantId)!, elsewhere: elsewhereOf?.get(deviceIntId) };
  });
}

/**
 * The synchronous part: checks the tenant's connection limit and records the session in one step, so concurrent
 * authentications cannot both take the last place, and a batch admits its devices in request order.
 */
function admit(verified: Verified, deps: AuthDeps): AuthenticateResponse {
  if ("answer" in verified) return verified.answer;
  const { outcome, limits, elsewhere } = verified;
  const { tenantId, deviceIntId } = outcome.device;
  if (!deps.sessions.admits(tenantId, deviceIntId, limits.maxConnections, Date.now(), elsewhere)) {
    deps.logger.warn(
      { tenantId, device: deviceIntId, maxConnections: limits.maxConnections },
      "connection refused: tenant connection limit reached",
    );
    return create(AuthenticateResponseSchema, {
      result: AuthResult.QUOTA_EXCEEDED,
      message: `tenant connection limit (${limits.maxConnections}) reached`,
      sessionId: "",
    });
  }
  const sessionId = randomUUID();
  deps.sessions.issued(sessionId, deviceIntId, tenantId);
  return admittedAnswer(outcome, sessionId, { tenantId, maxUplinkRate: limits.maxUplinkRate });
}

/** Handles Authenticate: every answer is a response; only a broken store is a gRPC error. */
export async function authenticate(req: AuthenticateRequest, deps: AuthDeps): Promise<AuthenticateResponse> {
  const [verified] = await verify([req], deps);
  const responses = [admit(verified!, deps)];
  await openMqttSessions([req], responses, deps.db, deps.mqttSessionWrites);
  return responses[0]!;
}

/** Most requests one AuthenticateBatch, or AuthenticateCall on the stream, may carry: a bound on one call's work. */
export const AUTHENTICATE_BATCH_MAX = 1000;

/**
 * Answers several requests as Authenticate would, in order: AuthenticateBatch, and AuthenticateCall on the Connect
 * stream. A broken store rejects; so does a call over AUTHENTICATE_BATCH_MAX (FORM_INVALID).
 */
export async function authenticateAll(
  reqs: readonly AuthenticateRequest[],
  deps: AuthDeps,
): Promise<AuthenticateResponse[]> {
  if (reqs.length > AUTHENTICATE_BATCH_MAX)
    throw new RegistryError("FORM_INVALID", undefined, `at most ${AUTHENTICATE_BATCH_MAX} requests per call`);
  const verified = await verify(reqs, deps);
  const responses = verified.map((v) => admit(v, deps));
  await openMqttSessions(reqs, responses, deps.db, deps.mqttSessionWrites);
  return responses;
}
