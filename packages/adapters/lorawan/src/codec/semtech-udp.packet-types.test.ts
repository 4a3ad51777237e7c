/**
 * decodeSemtechPacket on every packet type but PUSH_DATA (PULL_DATA, the ACKs, PULL_RESP, TX_ACK), and on datagrams
 * that are none: bad headers, mutations, random bytes and the size limit.
 */
import { describe, expect, test } from "vitest";
import { reason, value } from "./result-test-kit.js";
import { decodeSemtechPacket } from "./semtech-udp.js";
import { datagram, EUI, goodRxpk, hex, PROTOCOL_TXT_STAT } from "./semtech-udp-test-kit.js";

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
