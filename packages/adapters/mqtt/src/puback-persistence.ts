import { Readable } from "node:stream";
import type { Client } from "aedes";
import memoryPersistence from "aedes-persistence";
import type { RetainedStore } from "./retained-table.js";

/**
 * aedes-persistence's factory. The package is CommonJS (`module.exports` is the factory) while its types declare an
 * ES default export, which TypeScript then places one level down for an ES module importing it.
 */
const memory = memoryPersistence as unknown as () => object;

/** The packet aedes hands its persistence when a device acknowledges one it was sent. */
interface AckPacket {
  readonly cmd: string;
  readonly messageId?: number;
}

/** A subscription as aedes restores it (mqtt-packet's, with the identifier aedes carries on it). */
export interface AedesSubscription {
  topic: string;
  qos: 0 | 1 | 2;
  nl?: boolean;
  rap?: boolean;
  rh?: number;
  subscriptionIdentifier?: number;
}

/** The persistence methods the adapter answers itself. */
interface SessionMethods {
  subscriptionsByClient(client: { id: string }): Promise<AedesSubscription[]>;
  addSubscriptions(client: Client, subs: unknown): Promise<void>;
  removeSubscriptions(client: Client, subs: unknown): Promise<void>;
  outgoingEnqueue(sub: unknown, packet: unknown): Promise<void>;
  outgoingEnqueueCombi(subs: unknown, packet: unknown): Promise<void>;
  outgoingUpdate(client: Client, packet: unknown): Promise<void>;
  outgoingClearMessageId(client: Client, packet: AckPacket): Promise<undefined>;
  outgoingStream(client: Client): Readable;
}

/**
 * aedes' in-memory persistence (retained messages and wills), with the session state left out of this process's
 * memory: a persistent session lives in the registry's store (docs/devices/mqtt.md "Persistent sessions").
 *
 * - `subscriptionsByClient`, which aedes asks at a CONNECT that resumes a session, answers the subscriptions the
 *   registry returned with the device's authentication (`restoredFor`, by aedes client id); aedes restores them and
 *   answers CONNACK session present 1 when there are any.
 * - Subscriptions are not kept here (the adapter reports a persistent session's set to the registry from aedes'
 *   'subscribe' and 'unsubscribe' events), nor are outgoing QoS 1/2 messages (the registry keeps a command until the
 *   device acknowledges it, and sends it again, with its packet identifier, to the device's next session).
 * - Every PUBACK and PUBCOMP a device sends is told to `onAck`: aedes passes each to `outgoingClearMessageId`, a public
 *   interface (aedes-persistence's), while its 'ack' event carries no packet. The adapter settles the QoS 1 or 2
 *   command it answers (by its packet identifier, which the adapter chose in authorizeForward).
 */
export function pubackObservingPersistence(
  onAck: (client: Client, cmd: "puback" | "pubcomp", messageId: number) => void,
  restoredFor: (clientId: string) => AedesSubscription[],
): RetainedStore {
  const persistence = memory() as unknown as SessionMethods & RetainedStore;
  const none = () => Promise.resolve();
  persistence.subscriptionsByClient = (client) => Promise.resolve(restoredFor(client.id));
  persistence.addSubscriptions = none;
  persistence.removeSubscriptions = none;
  persistence.outgoingEnqueue = none;
  persistence.outgoingEnqueueCombi = none;
  persistence.outgoingUpdate = none;
  persistence.outgoingStream = () => Readable.from([]);
  persistence.outgoingClearMessageId = (client, packet) => {
    if ((packet.cmd === "puback" || packet.cmd === "pubcomp") && packet.messageId !== undefined)
      onAck(client, packet.cmd, packet.messageId);
    return Promise.resolve(undefined);
  };
  return persistence;
}
