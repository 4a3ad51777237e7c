import { describe, expect, test } from "vitest";
import type { RxPacket, TxPacket } from "./radio-packet.js";
import { acknowledgementOf, decodeSemtechPacket, encodeSemtechPacket, type SemtechPacket } from "./semtech-udp.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};

const EUI = "aa555a0000000001";
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");
const datagram = (head: string, json?: unknown) =>
  Buffer.concat([hex(head), json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json))]);

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
const PROTOCOL_TXT_STAT = {
  time: "2014-01-12 08:59:28 GMT",
  lati: 46.24,
  long: 3.2523,
  alti: 145,
  rxnb: 2,
  rxok: 2,
  rxfw: 2,
  ackr: 100.0,
  dwnb: 2,
  txnb: 2,
};

const goodRxpk = {
  tmst: 1000,
  freq: 868.1,
  chan: 0,
  rfch: 0,
  stat: 1,
  modu: "LORA",
  datr: "SF7BW125",
  codr: "4/5",
  rssi: -50,
  lsnr: 9.5,
  size: 4,
  data: "AQIDBA==",
};

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

describe("decodeSemtechPacket: the other packet types", () => {
  test("PULL_DATA is 12 bytes: header and gateway EUI", () => {
    expect(value(decodeSemtechPacket(hex(`02 12 34 02 ${EUI}`)))).toEqual({
      type: "PULL_DATA",
      version: 2,
      token: 0x1234,
      gatewayEui: EUI,
    });
    expect(reason(decodeSemtechPacket(hex(`02 12 34 02 ${EUI} 00`)))).toMatch(/PULL_DATA must be 12 bytes, got 13/);
  });

  test("PUSH_ACK and PULL_ACK are 4 bytes", () => {
    expect(value(decodeSemtechPacket(hex("01 ff 00 01")))).toEqual({ type: "PUSH_ACK", version: 1, token: 0xff00 });
    expect(value(decodeSemtechPacket(hex("02 00 ff 04")))).toEqual({ type: "PULL_ACK", version: 2, token: 0x00ff });
    expect(reason(decodeSemtechPacket(hex("02 00 ff 04 00")))).toMatch(/PULL_ACK must be 4 bytes/);
  });

  test("PULL_RESP carries a txpk; its data comes out as bytes", () => {
    // The LoRa example of PROTOCOL.TXT §6 (43 base64 characters, unpadded: 32 bytes).
    const txpk = {
      imme: true,
      freq: 864.123456,
      rfch: 0,
      powe: 14,
      modu: "LORA",
      datr: "SF11BW125",
      codr: "4/6",
      ipol: false,
      size: 32,
      data: "H3P3N2i9qc4yt7rK7ldqoeCVJGBybzPY5h1Dd7P7p8v",
    };
    const p = value(decodeSemtechPacket(datagram("02 5a 5a 03", { txpk })));
    expect(p).toMatchObject({ type: "PULL_RESP", token: 0x5a5a, txpk: { imme: true, freq: 864.123456, powe: 14 } });
    if (p.type !== "PULL_RESP") throw new Error("type");
    expect(p.txpk.data).toHaveLength(32);
  });

  test("a PULL_RESP without a txpk timing or with a bad txpk is refused", () => {
    const base = { freq: 869.525, rfch: 0, powe: 14, modu: "LORA", datr: "SF12BW125", data: "AQ==" };
    expect(reason(decodeSemtechPacket(datagram("02 00 00 03", { txpk: base })))).toMatch(/needs a timing/);
    expect(reason(decodeSemtechPacket(datagram("02 00 00 03", { tx: base })))).toMatch(
      /PULL_RESP txpk: must be a JSON object/,
    );
    expect(reason(decodeSemtechPacket(datagram("02 00 00 03", { txpk: { ...base, imme: true, powe: 1.5 } })))).toMatch(
      /powe must be an integer/,
    );
    expect(reason(decodeSemtechPacket(datagram("02 00 00 03", { txpk: { ...base, tmst: 1, data: "" } })))).toMatch(
      /data is empty/,
    );
  });

  test("a TX_ACK without JSON, or with only a NUL byte, means the downlink was scheduled", () => {
    expect(value(decodeSemtechPacket(hex(`02 77 77 05 ${EUI}`)))).toEqual({
      type: "TX_ACK",
      version: 2,
      token: 0x7777,
      gatewayEui: EUI,
      ack: { error: "NONE" },
    });
    expect(value(decodeSemtechPacket(hex(`02 77 77 05 ${EUI} 00`)))).toMatchObject({ ack: { error: "NONE" } });
  });

  test("a TX_ACK reports the gateway's error, or its warning and the value it used", () => {
    const late = datagram(`02 00 09 05 ${EUI}`, { txpk_ack: { error: "TOO_LATE" } });
    expect(value(decodeSemtechPacket(late))).toMatchObject({ token: 9, ack: { error: "TOO_LATE" } });
    const warn = datagram(`02 00 0a 05 ${EUI}`, { txpk_ack: { warn: "TX_POWER", value: 20 } });
    expect(value(decodeSemtechPacket(warn))).toMatchObject({ ack: { error: "NONE", warn: "TX_POWER", value: 20 } });
  });

  test("a TX_ACK whose JSON lacks txpk_ack or has a non-string error is refused", () => {
    expect(reason(decodeSemtechPacket(datagram(`02 00 09 05 ${EUI}`, { ack: 1 })))).toMatch(/no txpk_ack object/);
    expect(reason(decodeSemtechPacket(datagram(`02 00 09 05 ${EUI}`, { txpk_ack: { error: 3 } })))).toMatch(
      /error must be a string/,
    );
    expect(reason(decodeSemtechPacket(hex(`02 00 09 05 ${EUI.slice(0, 8)}`)))).toMatch(/shorter than its 12-byte/);
  });

  test.each([
    ["", /shorter than the 4-byte header/],
    ["02 00 01", /shorter than the 4-byte header/],
    ["03 00 01 00", /protocol version 3 is not 1 or 2/],
    ["00 00 01 02", /protocol version 0/],
    ["02 00 01 06", /identifier 0x06 is unknown/],
    ["02 00 01 ff", /identifier 0xff is unknown/],
  ])("%j is refused with a reason", (bytes, why) => {
    expect(reason(decodeSemtechPacket(hex(bytes)))).toMatch(why);
  });

  test("mutated and truncated copies of a good PUSH_DATA never throw", () => {
    const good = datagram(`02 00 01 00 ${EUI}`, { rxpk: [goodRxpk, goodRxpk], stat: PROTOCOL_TXT_STAT });
    let seed = 7;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 8) % n;
    for (let i = 0; i < 3000; i++) {
      const d = Buffer.from(good.subarray(0, good.length - rand(8)));
      for (let k = rand(4); k >= 0; k--) d[12 + rand(d.length - 12)] = rand(128);
      const r = decodeSemtechPacket(d);
      expect(typeof r.ok).toBe("boolean");
    }
  });

  test("a datagram over the size limit is refused before it is read", () => {
    const big = Buffer.concat([hex(`02 00 01 00 ${EUI}`), Buffer.alloc(70_000, 0x20)]);
    expect(reason(decodeSemtechPacket(big))).toMatch(/70012 bytes is over the 65507-byte limit/);
    expect(reason(decodeSemtechPacket(hex(`02 00 01 02 ${EUI}`), { maxBytes: 8 }))).toMatch(/over the 8-byte limit/);
  });

  test("random bytes never throw: every datagram yields a packet or a reason", () => {
    let seed = 42;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 16) & 0xff;
    for (let i = 0; i < 2000; i++) {
      const len = rand() % 64;
      const d = Buffer.from(Array.from({ length: len }, rand));
      if (len > 0) d[0] = 1 + (rand() & 1);
      if (len > 3) d[3] = rand() % 7;
      const r = decodeSemtechPacket(d);
      expect(typeof r.ok).toBe("boolean");
    }
  });
});

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
