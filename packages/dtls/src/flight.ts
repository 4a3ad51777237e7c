import type { RecordChannel } from "./channel.js";
import { fragmentHandshake, HANDSHAKE_HEADER } from "./handshake.js";
import { CHANGE_CIPHER_SPEC } from "./messages.js";
import { ContentType, RECORD_HEADER } from "./record.js";

/** One message of a flight: the plaintext of a record and the epoch that protects it. */
export type FlightEntry = { type: number; epoch: 0 | 1; plaintext: Buffer };

/** ChangeCipherSpec, then the Finished message (its wire form) under the new keys. */
export function finishedFlight(finished: Buffer): FlightEntry[] {
  return [
    { type: ContentType.changeCipherSpec, epoch: 0, plaintext: CHANGE_CIPHER_SPEC },
    { type: ContentType.handshake, epoch: 1, plaintext: finished },
  ];
}

/** Room a protected record needs beyond its plaintext: CBC's IV, MAC and a block of padding (more than AEAD's). */
const PROTECTION_OVERHEAD = 16 + 32 + 16;

/**
 * A flight as records packed into datagrams of at most `mtu` bytes, handshake messages too big for one record cut
 * into fragments (RFC 6347 §4.2.3). Each call numbers the records anew, as a retransmission must.
 */
export function packFlight(flight: FlightEntry[], channel: RecordChannel, mtu: number): Buffer[] {
  const room = mtu - RECORD_HEADER - PROTECTION_OVERHEAD - HANDSHAKE_HEADER;
  const datagrams: Buffer[][] = [[]];
  let size = 0;
  for (const { type, epoch, plaintext } of flight) {
    const parts = type === ContentType.handshake ? refragment(plaintext, room) : [plaintext];
    for (const part of parts) {
      const record = channel.record(type, epoch, part);
      if (size + record.length > mtu && size > 0) {
        datagrams.push([]);
        size = 0;
      }
      datagrams.at(-1)!.push(record);
      size += record.length;
    }
  }
  return datagrams.map((d) => Buffer.concat(d));
}

function refragment(wire: Buffer, room: number): Buffer[] {
  if (wire.length - HANDSHAKE_HEADER <= room) return [wire];
  const body = wire.subarray(HANDSHAKE_HEADER);
  return fragmentHandshake({ msgType: wire[0]!, messageSeq: wire.readUInt16BE(4), body }, room);
}
