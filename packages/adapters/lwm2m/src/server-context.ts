import type { DownlinkOutcome } from "@iot/adapter-core";
import { CoapError } from "@iot/adapter-coap";
import type { Logger } from "pino";
import type { ClientRegistration } from "./client-registration.js";
import { uplinkBytes, type AnswerUplink } from "./response-uplink.js";

/**
 * What the operations (commands, observations) share: the uplink path back (each registration holds the CoAP layer
 * that reaches its client).
 */
export interface ServerContext {
  readonly log: Logger;
  /** Sends an answer or notification as an uplink of the registration's session; never rejects (failures logged). */
  publish(registration: ClientRegistration, topic: string, uplink: AnswerUplink): Promise<void>;
}

/** Builds the context. */
export function serverContext(log: Logger): ServerContext {
  return {
    log,
    async publish(registration, topic, uplink) {
      try {
        const refused = await registration.lease.publish(topic, uplinkBytes(uplink), 1);
        if (refused) log.warn({ deviceId: registration.deviceId, topic, reason: refused.message }, "uplink refused");
      } catch (err) {
        log.warn({ deviceId: registration.deviceId, topic, err: (err as Error).message }, "uplink not sent");
      }
    },
  };
}

/**
 * A request that got no answer as a FAILED outcome, with the CoAP layer's reason: `timeout: no answer from the peer
 * within 30000 ms` when the client never answered (IOT_LWM2M_REQUEST_TIMEOUT_MS).
 */
export function failureOf(err: unknown): DownlinkOutcome {
  if (err instanceof CoapError) return { status: "FAILED", message: `${err.code}: ${err.message}` };
  return { status: "FAILED", message: (err as Error).message };
}
