import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { AuthDeviceRow } from "./auth-device-row.js";
import { DEFAULT_DOWNLINK_TOPIC, type AuthOutcome, type TopicRule } from "./auth-outcome.js";
import type { Deny, Refusal } from "./auth-refusal.js";
import { parseLwm2mBootstrap } from "../lwm2m/lwm2m-bootstrap.js";
import { policiesOfDevice } from "./policies.js";
import { retainedOfDevices, type PushedRetained } from "./retained.js";
import { subscriptionsOfDevice } from "./subscriptions.js";

/**
 * MQTT over TCP and MQTT over WebSocket are one protocol family served by one adapter. A gateway is also admitted
 * by the adapter of its gatewayProtocol: a Modbus gateway's adapter speaks Modbus to the slaves, whatever protocol
 * the gateway's product names.
 */
function protocolAccepted(row: AuthDeviceRow, adapterProtocol: number): boolean {
  const family = (p: number | null) => (p === 6 ? 1 : p);
  if (family(row.cloudProtocol) === family(adapterProtocol)) return true;
  return row.deviceType === 2 && family(row.gatewayProtocol) === family(adapterProtocol);
}

/** Compares two secrets in constant time, so that a wrong token's timing tells nothing of the right one. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The checks shared by every credential kind: blocked, protocol. */
export function sharedRefusal(row: AuthDeviceRow, protocol: number): Refusal | undefined {
  if (row.blocked === 1) return ["BLOCKED", "device is blocked"];
  if (!protocolAccepted(row, protocol)) return ["NOT_ALLOWED", "device's product uses another protocol"];
  return undefined;
}

/**
 * An admitted device's outcome: the identity the adapter needs, with its topic rules, proxy subscriptions and
 * retained messages.
 */
export function admitted(
  row: AuthDeviceRow,
  credentialStamp: string,
  policies: TopicRule[],
  subscriptions: ReadonlyArray<{ topic: string; qos: number }>,
  retained: PushedRetained[] | undefined,
): AuthOutcome {
  const lwm2mBootstrap = row.cloudProtocol === 3 ? parseLwm2mBootstrap(row.lwm2mBootstrap) : undefined;
  return {
    ok: true,
    ...(lwm2mBootstrap ? { lwm2mBootstrap } : {}),
    credentialStamp,
    policies,
    subscriptions: subscriptions.map((s) => ({ topic: s.topic, qos: s.qos })),
    ...(retained?.length ? { retained } : {}),
    device: {
      tenantId: row.tenantId,
      deviceIntId: row.id,
      deviceId: row.deviceId,
      deviceName: row.deviceName,
      productIntId: row.productIntId,
      productId: row.productId,
      protocol: row.cloudProtocol,
      mountpoint: `d/${row.id}/`,
      defaultDownlinkTopic: DEFAULT_DOWNLINK_TOPIC,
      deviceType: row.deviceType,
      isGateway: row.deviceType === 2,
      autoSub: row.autoSub === 1,
    },
  };
}

/**
 * The checks shared by every credential kind (blocked, protocol), then the identity the adapter needs: the last step
 * of every check but the token batch's, which reads the topic rules of all its devices at once.
 */
export async function admitDevice(
  db: Kysely<Database>,
  row: AuthDeviceRow,
  protocol: number,
  deny: Deny,
  credentialStamp: string,
): Promise<AuthOutcome> {
  const refusal = sharedRefusal(row, protocol);
  if (refusal) return deny(...refusal);
  // The device's topic rules travel with its session: the adapter enforces them with no call per message.
  const [policies, subscriptions, retained] = await Promise.all([
    policiesOfDevice(db, row.id),
    subscriptionsOfDevice(db, row.id),
    retainedOfDevices(db, [row.id]),
  ]);
  return admitted(row, credentialStamp, policies, subscriptions, retained.get(row.id));
}
