/**
 * decodeSemtechPacket on PUSH_DATA, the gateway's uplinks and status: what is read, what is left out with its reason
 * and what refuses the datagram. The other packet types are in semtech-udp.packet-types.test.ts, encoding in
 * semtech-udp.encode.test.ts.
 */
import { describe, expect, test } from "vitest";
import { reason, value } from "./result-test-kit.js";
import { decodeSemtechPacket } from "./semtech-udp.js";
import { datagram, EUI, goodRxpk, hex, PROTOCOL_TXT_STAT } from "./semtech-udp-test-kit.js";

// The upstream example of Lora-net/packet_forwarder PROTOCOL.TXT §4 (its first rxpk's data holds "-", not base64).
const PROTOCOL_TXT_RXPK = [
  {
    time: "2013-03-31T16:21:17.528002Z",
    tmst: 3512348611,
    chan: 2,
    rfch: 0,
    freq: 866.349812,
    stat: 1,
    modu: "LORA",
    datr: "SF7BW125",
    codr: "4/6",
    rssi: -35,
    lsnr: 5.1,
    size: 32,
    data: "-DS4CGaDCdG+48eJNM3Vai-zDpsR71Pn9CPA9uCON84",
  },
  {
    time: "2013-03-31T16:21:17.530974Z",
    tmst: 3512348514,
    chan: 9,
    rfch: 1,
    freq: 869.1,
    stat: 1,
    modu: "FSK",
    datr: 50000,
    rssi: -75,
    size: 16,
    data: "VEVTVF9QQUNLRVRfMTIzNA==",
  },
  {
    time: "2013-03-31T16:21:17.532038Z",
    tmst: 3316387610,
    chan: 0,
    rfch: 0,
    freq: 863.00981,
    stat: 1,
    modu: "LORA",
    datr: "SF10BW125",
    codr: "4/7",
    rssi: -38,
    lsnr: 5.5,
    size: 32,
    data: "ysgRl452xNLep9S1NTIg2lomKDxUgn3DJ7DE+b00Ass",
  },
];

describe("decodeSemtechPacket: PUSH_DATA", () => {
  test("reads version, token and gateway EUI from the 12-byte header and the rxpk and stat from the JSON", () => {
    const p = value(
      decodeSemtechPacket(
        datagram(`02 ab cd 00 ${EUI}`, { rxpk: PROTOCOL_TXT_RXPK.slice(1), stat: PROTOCOL_TXT_STAT }),
      ),
    );
    expect(p).toMatchObject({ type: "PUSH_DATA", version: 2, token: 0xabcd, gatewayEui: EUI, ignored: [] });
    if (p.type !== "PUSH_DATA") throw new Error("type");
    expect(p.rxpk).toHaveLength(2);
    expect(p.rxpk[0]).toMatchObject({ modu: "FSK", datr: 50000, freq: 869.1, rssi: -75, size: 16 });
    expect(p.rxpk[0]!.data.toString()).toBe("TEST_PACKET_1234");
    expect(p.rxpk[0]!.lsnr).toBeUndefined();
    expect(p.rxpk[1]).toMatchObject({ tmst: 3316387610, datr: "SF10BW125", codr: "4/7", lsnr: 5.5, size: 32 });
    expect(p.rxpk[1]!.data).toHaveLength(32);
    expect(p.stat).toEqual(PROTOCOL_TXT_STAT);
  });

  test("the PROTOCOL.TXT example keeps its two good rxpk and lists the one whose data is not base64", () => {
    const p = value(decodeSemtechPacket(datagram(`01 00 01 00 ${EUI}`, { rxpk: PROTOCOL_TXT_RXPK })));
    if (p.type !== "PUSH_DATA") throw new Error("type");
    expect(p.version).toBe(1);
    expect(p.rxpk.map((r) => r.tmst)).toEqual([3512348514, 3316387610]);
    expect(p.ignored).toEqual([{ part: "rxpk[0]", reason: "data is not base64" }]);
  });

  test("a stat-only PUSH_DATA has no rxpk", () => {
    const p = value(decodeSemtechPacket(datagram(`02 00 02 00 ${EUI}`, { stat: PROTOCOL_TXT_STAT })));
    expect(p).toMatchObject({ type: "PUSH_DATA", rxpk: [], stat: { rxnb: 2, ackr: 100 } });
  });

  test("trailing NUL bytes and a newline after the JSON, as some forwarders send, are tolerated", () => {
    const d = Buffer.concat([datagram(`02 00 03 00 ${EUI}`, { rxpk: [goodRxpk] }), Buffer.from([0x0a, 0, 0])]);
    expect(value(decodeSemtechPacket(d))).toMatchObject({ type: "PUSH_DATA", rxpk: [{ tmst: 1000 }] });
  });

  test("a multi-antenna report without top-level rssi takes the signal of its best antenna (rsig)", () => {
    const { rssi: _r, lsnr: _l, ...noSignal } = goodRxpk;
    const rx = {
      ...noSignal,
      rsig: [
        { ant: 0, chan: 0, rssic: -90, lsnr: -3 },
        { ant: 1, chan: 0, rssic: -95, lsnr: 4.5 },
      ],
    };
    const p = value(decodeSemtechPacket(datagram(`02 00 04 00 ${EUI}`, { rxpk: [rx] })));
    expect(p).toMatchObject({ rxpk: [{ rssi: -95, lsnr: 4.5 }] });
  });

  test("unpadded base64 data is accepted", () => {
    const p = value(decodeSemtechPacket(datagram(`02 00 05 00 ${EUI}`, { rxpk: [{ ...goodRxpk, data: "AQIDBA" }] })));
    expect(p).toMatchObject({ rxpk: [{ data: Buffer.from([1, 2, 3, 4]) }] });
  });

  test.each([
    [{ data: undefined }, /data must be a base64 string/],
    [{ data: "" }, /data is empty/],
    [{ data: "AQIDB" }, /base64 length/],
    [{ data: "AQ==AQ==" }, /not base64/],
    [{ size: 5 }, /size 5 differs from the 4 bytes/],
    [{ data: Buffer.alloc(256).toString("base64"), size: 256 }, /more than a radio packet/],
    [{ tmst: -1 }, /tmst must be an unsigned 32-bit integer/],
    [{ tmst: 2 ** 32 }, /tmst/],
    [{ tmst: 1.5 }, /tmst/],
    [{ freq: "868.1" }, /freq must be a positive number/],
    [{ freq: 0 }, /freq/],
    [{ modu: "LR-FHSS" }, /modu "LR-FHSS" must be "LORA" or "FSK"/],
    [{ datr: "SF13BW125" }, /not a LoRa data rate/],
    [{ datr: "SF7BW126" }, /not a LoRa data rate/],
    [{ datr: 50000 }, /datr of a LORA packet must be a string/],
    [{ modu: "FSK", datr: "SF7BW125" }, /datr of an FSK packet must be the bit rate/],
    [{ rssi: undefined }, /rssi must be a number/],
    [{ lsnr: "9" }, /rssi must be a number|lsnr must be a number/],
    [{ stat: 2 }, /stat must be 1, 0 or -1/],
    [{ chan: -1 }, /chan must be a small unsigned integer/],
    [{ rfch: 300 }, /rfch/],
    [{ tmms: -5 }, /tmms/],
    [{ time: 5 }, /time must be a string/],
    [{ codr: 45 }, /codr must be a string/],
  ])("an rxpk with %j is left out with its reason, never thrown", (patch, why) => {
    const p = value(
      decodeSemtechPacket(datagram(`02 00 06 00 ${EUI}`, { rxpk: [{ ...goodRxpk, ...patch }, goodRxpk] })),
    );
    if (p.type !== "PUSH_DATA") throw new Error("type");
    expect(p.rxpk).toHaveLength(1);
    expect(p.ignored).toHaveLength(1);
    expect(p.ignored[0]!.part).toBe("rxpk[0]");
    expect(p.ignored[0]!.reason).toMatch(why);
  });

  test("an rxpk that is not an object is left out", () => {
    const p = value(decodeSemtechPacket(datagram(`02 00 07 00 ${EUI}`, { rxpk: [42] })));
    expect(p).toMatchObject({ rxpk: [], ignored: [{ part: "rxpk[0]", reason: "must be a JSON object" }] });
  });

  test("a stat with a field of the wrong type is left out and the rxpk kept", () => {
    const p = value(decodeSemtechPacket(datagram(`02 00 08 00 ${EUI}`, { rxpk: [goodRxpk], stat: { rxnb: "2" } })));
    expect(p).toMatchObject({ rxpk: [{ tmst: 1000 }], ignored: [{ part: "stat", reason: "rxnb must be a number" }] });
    expect((p as { stat?: unknown }).stat).toBeUndefined();
  });

  test.each([
    [`02 00 01 00 ${EUI.slice(0, 14)}`, /shorter than its 12-byte header/],
    [`02 00 01 00 ${EUI}`, /body must be a JSON object/],
    [`02 00 01 00 ${EUI} 5b5d`, /body must be a JSON object/],
    [`02 00 01 00 ${EUI} 7b2272`, /not valid JSON/],
  ])("PUSH_DATA %s is refused", (head, why) => {
    expect(reason(decodeSemtechPacket(hex(head)))).toMatch(why);
  });

  test("an rxpk member that is not an array refuses the datagram", () => {
    expect(reason(decodeSemtechPacket(datagram(`02 00 01 00 ${EUI}`, { rxpk: goodRxpk })))).toMatch(
      /rxpk must be an array/,
    );
  });
});
