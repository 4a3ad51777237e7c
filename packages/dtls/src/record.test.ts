import { describe, expect, test } from "vitest";
import { ContentType, decodeRecords, DTLS12, encodeRecord, MAX_RECORD_BODY } from "./record.js";

describe("decodeRecords", () => {
  test("splits a datagram holding two records and keeps epoch, 48-bit sequence and body", () => {
    const a = { type: ContentType.handshake, version: DTLS12, epoch: 0, seq: 2 ** 40 + 5, body: Buffer.from("ab") };
    const b = { type: ContentType.applicationData, version: DTLS12, epoch: 1, seq: 7, body: Buffer.from("xyz") };
    const wire = Buffer.concat([encodeRecord(a), encodeRecord(b)]);
    expect(wire.subarray(0, 13).toString("hex")).toBe("16fefd000001000000000500" + "02");
    const decoded = decodeRecords(wire);
    expect(decoded).toEqual({ ok: true, value: [a, b] });
  });

  test("refuses a record cut short, an unknown type, a non-DTLS version and an oversized length", () => {
    const good = encodeRecord({ type: 22, version: DTLS12, epoch: 0, seq: 0, body: Buffer.alloc(4) });
    expect(decodeRecords(good.subarray(0, good.length - 1)).ok).toBe(false);
    expect(decodeRecords(Buffer.concat([good, Buffer.from([22, 0xfe])])).ok).toBe(false);
    const badType = Buffer.from(good);
    badType[0] = 99;
    expect(decodeRecords(badType)).toEqual({ ok: false, reason: "record: unknown content type 99" });
    const tls = Buffer.from(good);
    tls.writeUInt16BE(0x0303, 1);
    expect(decodeRecords(tls).ok).toBe(false);
    const huge = Buffer.from(good);
    huge.writeUInt16BE(MAX_RECORD_BODY + 1, 11);
    expect(decodeRecords(huge).ok).toBe(false);
  });
});
