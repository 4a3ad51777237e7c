import {
  AuthResult,
  create,
  MqttSessionStateSchema,
  type AuthenticateRequest,
  type AuthenticateResponse,
  storedSubscriptionToProto,
} from "@iot/proto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { openSessions, type SessionAsk } from "../sessions/mqtt-sessions.js";
import type { SessionWrites } from "../sessions/mqtt-session-writes.js";

/** The MQTT client id the request's credentials claim; "" for kinds that carry none. */
function clientIdOf(req: AuthenticateRequest): string {
  const k = req.credentials?.kind;
  return k?.case === "token" || k?.case === "certificate" ? k.value.clientId : "";
}

/**
 * Opens the persistent MQTT sessions of the admitted requests that carry session flags, and answers each the session
 * it resumes (AuthenticateResponse.mqtt_session), in one batch (openSessions). A request with no client id has no
 * session to resume.
 */
export async function openMqttSessions(
  reqs: readonly AuthenticateRequest[],
  responses: AuthenticateResponse[],
  db: Kysely<Database>,
  writes: SessionWrites | undefined,
): Promise<void> {
  const asks: SessionAsk[] = [];
  const at: number[] = [];
  reqs.forEach((req, i) => {
    const res = responses[i]!;
    const flags = req.mqttSession;
    const clientId = clientIdOf(req);
    if (!flags || !clientId || res.result !== AuthResult.OK || !res.device) return;
    asks.push({
      deviceIntId: Number(res.device.deviceIntId),
      clientId,
      sessionId: res.sessionId,
      cleanStart: flags.cleanStart,
      expiryInterval: flags.expiryInterval,
    });
    at.push(i);
  });
  if (asks.length === 0) return;
  const resumed = await openSessions(db, asks, Date.now(), writes && ((w) => writes.run(w)));
  resumed.forEach((r, k) => {
    responses[at[k]!]!.mqttSession = create(MqttSessionStateSchema, {
      present: r.present,
      subscriptions: r.subscriptions.map(storedSubscriptionToProto),
    });
  });
}
