import { decodeWith } from "./bytes.js";
import { ok, refuse, type Result } from "./result.js";

/** Record content types (RFC 5246 §6.2.1), and tls12_cid (RFC 9146 §3). */
export const ContentType = {
  changeCipherSpec: 20,
  alert: 21,
  handshake: 22,
  applicationData: 23,
  tls12Cid: 25,
} as const;

/** DTLS 1.2 on the wire (RFC 6347 §4.1: the ones' complement of 1.2). */
export const DTLS12 = 0xfefd;
/** DTLS 1.0, which a HelloVerifyRequest carries whatever version follows (RFC 6347 §4.2.1). */
export const DTLS10 = 0xfeff;

/** A record's header is 13 bytes: type, version, epoch, 48-bit sequence number, length. */
export const RECORD_HEADER = 13;
/** Largest record body accepted: 2^14 plus the 2048 bytes protection may add (RFC 6347 §4.1, RFC 5246 §6.2.3). */
export const MAX_RECORD_BODY = 16384 + 2048;

/** One DTLS record; `body` is the fragment as sent (protected when epoch > 0). */
export interface DtlsRecord {
  type: number;
  version: number;
  epoch: number;
  seq: number;
  /** The connection ID of a tls12_cid record (RFC 9146 §4), between the sequence number and the length. */
  cid?: Buffer;
  body: Buffer;
}

const TYPES = new Set<number>(Object.values(ContentType));

/**
 * Splits a datagram into its records (RFC 6347 §4.1.1: several may share one). A malformed record refuses the whole
 * datagram: its length cannot be trusted to find the next one. `cidLength`: the length of the connection IDs this side
 * hands out (RFC 9146 leaves it implicit); 0 refuses tls12_cid records.
 */
export function decodeRecords(datagram: Buffer, cidLength = 0): Result<DtlsRecord[]> {
  return decodeWith("record", datagram, (r) => {
    const records: DtlsRecord[] = [];
    while (r.remaining > 0) {
      const type = r.u8();
      const version = r.u16();
      const epoch = r.u16();
      const seq = r.u48();
      const withCid = type === ContentType.tls12Cid;
      if (withCid && (cidLength === 0 || epoch === 0)) return refuse("record: tls12_cid without a connection ID");
      const cid = withCid ? r.bytes(cidLength) : undefined;
      const length = r.u16();
      if (!TYPES.has(type)) return refuse(`record: unknown content type ${type}`);
      if (version >> 8 !== 0xfe) return refuse(`record: version ${version.toString(16)} is not DTLS`);
      if (length > MAX_RECORD_BODY) return refuse(`record: length ${length} over ${MAX_RECORD_BODY}`);
      const body = r.bytes(length);
      records.push(cid ? { type, version, epoch, seq, cid, body } : { type, version, epoch, seq, body });
    }
    return ok(records);
  });
}

/** One record on the wire, written into one buffer (records are made per datagram sent). */
export function encodeRecord(record: DtlsRecord): Buffer {
  const { type, version, epoch, seq, cid, body } = record;
  const cidLength = cid?.length ?? 0;
  const out = Buffer.allocUnsafe(RECORD_HEADER + cidLength + body.length);
  out[0] = type;
  out.writeUInt16BE(version, 1);
  out.writeUInt16BE(epoch, 3);
  out.writeUIntBE(seq, 5, 6);
  cid?.copy(out, 11);
  out.writeUInt16BE(body.length, 11 + cidLength);
  body.copy(out, RECORD_HEADER + cidLength);
  return out;
}
