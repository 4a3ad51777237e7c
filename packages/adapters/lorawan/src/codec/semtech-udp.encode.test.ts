/** encodeSemtechPacket, checked against PROTOCOL.TXT's byte layout and by decoding back, and acknowledgementOf. */
import { describe, expect, test } from "vitest";
import type { RxPacket, TxPacket } from "./radio-packet.js";
import { reason, value } from "./result-test-kit.js";
import { acknowledgementOf, decodeSemtechPacket, encodeSemtechPacket, type SemtechPacket } from "./semtech-udp.js";
import { datagram, EUI, goodRxpk, hex } from "./semtech-udp-test-kit.js";

describe("encodeSemtechPacket", () => {
  const rx: RxPacket = {
    time: "2024-05-01T10:00:00.000000Z",
    tmst: 4294967295,
    freq: 868.1,
    chan: 0,
    rfch: 0,
    stat: 1,
    modu: "LORA",
    datr: "SF12BW125",
    codr: "4/5",
    rssi: -120,
    lsnr: -12.5,
    size: 3,
    data: Buffer.from([0x40, 0x01, 0x02]),
  };
  const tx: TxPacket = {
    tmst: 5_000_000,
    freq: 869.525,
    rfch: 0,
    powe: 14,
    modu: "LORA",
    datr: "SF12BW125",
    codr: "4/5",
    ipol: true,
    data: Buffer.from([0x20, 0xff]),
  };
  const packets: SemtechPacket[] = [
    { type: "PUSH_DATA", version: 2, token: 1, gatewayEui: EUI, rxpk: [rx], stat: { rxnb: 1, ackr: 50 }, ignored: [] },
    { type: "PUSH_DATA", version: 1, token: 2, gatewayEui: EUI, rxpk: [], stat: { time: "x" }, ignored: [] },
    { type: "PUSH_ACK", version: 1, token: 3 },
    { type: "PULL_DATA", version: 2, token: 4, gatewayEui: EUI },
    { type: "PULL_ACK", version: 2, token: 65535 },
    { type: "PULL_RESP", version: 2, token: 6, txpk: tx },
    { type: "PULL_RESP", version: 1, token: 0, txpk: { ...tx, tmst: undefined, imme: true, ncrc: true, prea: 8 } },
    { type: "TX_ACK", version: 2, token: 7, gatewayEui: EUI, ack: { error: "COLLISION_PACKET" } },
    { type: "TX_ACK", version: 2, token: 8, gatewayEui: EUI, ack: { error: "NONE", warn: "TX_POWER", value: 27 } },
  ];

  test.each(packets.map((p) => [p.type, p] as const))("%s decodes back to the packet it was encoded from", (_, p) => {
    const decoded = value(decodeSemtechPacket(value(encodeSemtechPacket(p))));
    // toEqual treats absent and undefined members alike, as JSON does.
    expect(decoded).toEqual(p);
  });

  test("writes the byte layout of PROTOCOL.TXT: header, EUI, then JSON", () => {
    expect(value(encodeSemtechPacket({ type: "PUSH_ACK", version: 2, token: 0xabcd }))).toEqual(hex("02 ab cd 01"));
    expect(value(encodeSemtechPacket({ type: "PULL_DATA", version: 1, token: 1, gatewayEui: EUI }))).toEqual(
      hex(`01 00 01 02 ${EUI}`),
    );
    const resp = value(encodeSemtechPacket({ type: "PULL_RESP", version: 2, token: 0x0102, txpk: tx }));
    expect(resp.subarray(0, 4)).toEqual(hex("02 01 02 03"));
    expect(JSON.parse(resp.subarray(4).toString())).toEqual({
      txpk: {
        tmst: 5000000,
        freq: 869.525,
        rfch: 0,
        powe: 14,
        modu: "LORA",
        datr: "SF12BW125",
        codr: "4/5",
        ipol: true,
        size: 2,
        data: "IP8=",
      },
    });
  });

  test("size is written from the data so it cannot disagree with it", () => {
    const d = value(
      encodeSemtechPacket({
        type: "PUSH_DATA",
        version: 2,
        token: 1,
        gatewayEui: EUI,
        rxpk: [{ ...rx, size: 99 }],
        ignored: [],
      }),
    );
    expect(JSON.parse(d.subarray(12).toString()).rxpk[0].size).toBe(3);
  });

  test.each([
    [{ type: "PUSH_ACK", version: 3, token: 1 }, /version 3 is not 1 or 2/],
    [{ type: "PUSH_ACK", version: 2, token: 65536 }, /token 65536 must be 0..65535/],
    [{ type: "PULL_DATA", version: 2, token: 1, gatewayEui: "aa55" }, /gateway EUI "aa55" must be 16 hex digits/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, tmst: undefined } }, /needs a timing/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, datr: "SF7" } }, /not a LoRa data rate/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, data: Buffer.alloc(256) } }, /data must be 1 to 255/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, tmst: -1 } }, /tmst must be/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, freq: NaN } }, /freq must be/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, rfch: undefined } }, /rfch must be/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, ipol: "yes" } }, /ipol must be a boolean/],
    [{ type: "PULL_RESP", version: 2, token: 1, txpk: { ...tx, modu: "FSK" } }, /FSK packet must be the bit rate/],
  ])("refuses %j", (p, why) => {
    expect(reason(encodeSemtechPacket(p as SemtechPacket))).toMatch(why);
  });

  test("an FSK txpk with its bit rate and deviation is encoded", () => {
    const fsk = { ...tx, modu: "FSK" as const, datr: 50000, fdev: 25000, codr: undefined, ipol: undefined };
    const d = value(encodeSemtechPacket({ type: "PULL_RESP", version: 2, token: 1, txpk: fsk }));
    expect(JSON.parse(d.subarray(4).toString()).txpk).toMatchObject({ modu: "FSK", datr: 50000, fdev: 25000 });
  });
});

describe("acknowledgementOf", () => {
  test("answers PUSH_DATA with PUSH_ACK and PULL_DATA with PULL_ACK, same version and token", () => {
    const push = value(decodeSemtechPacket(datagram(`01 12 34 00 ${EUI}`, { rxpk: [goodRxpk] })));
    expect(acknowledgementOf(push)).toEqual(hex("01 12 34 01"));
    const pull = value(decodeSemtechPacket(hex(`02 be ef 02 ${EUI}`)));
    expect(acknowledgementOf(pull)).toEqual(hex("02 be ef 04"));
  });

  test("does not acknowledge TX_ACK or the server's own packet types", () => {
    expect(acknowledgementOf(value(decodeSemtechPacket(hex(`02 00 01 05 ${EUI}`))))).toBeUndefined();
    expect(acknowledgementOf({ type: "PULL_ACK", version: 2, token: 1 })).toBeUndefined();
  });
});
