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

/**
 * aedes' in-memory persistence, also telling the adapter about every PUBACK and PUBCOMP a device sends: aedes passes
 * each to `outgoingClearMessageId` of its persistence, a public interface (aedes-persistence's), while its 'ack'
 * event carries no packet for a clean session, whose outgoing messages are never stored. The adapter settles the
 * QoS 1 or 2 command that PUBACK or PUBCOMP answers (by its packet identifier, which the adapter chose in
 * authorizeForward).
 * A persistence of the registry's store, for persistent sessions, takes the same place later.
 */
export function pubackObservingPersistence(
  onAck: (client: Client, cmd: "puback" | "pubcomp", messageId: number) => void,
): RetainedStore {
  const persistence = memory() as unknown as RetainedStore & {
    outgoingClearMessageId(client: Client, packet: AckPacket, cb?: unknown): unknown;
  };
  const clear = persistence.outgoingClearMessageId.bind(persistence);
  persistence.outgoingClearMessageId = (client, packet, cb) => {
    if ((packet.cmd === "puback" || packet.cmd === "pubcomp") && packet.messageId !== undefined)
      onAck(client, packet.cmd, packet.messageId);
    return clear(client, packet, cb);
  };
  return persistence;
}
