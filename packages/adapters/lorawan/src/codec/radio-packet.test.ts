import { describe, expect, test } from "vitest";
import {
  decodeBase64,
  decodeGatewayStat,
  decodeRxPacket,
  decodeTxPacket,
  hasGoodCrc,
  hzToMhz,
  mhzToHz,
  parseLoraDatr,
  rxPacketJson,
  txPacketJson,
  txPacketProblem,
  type RxPacket,
  type TxPacket,
} from "./radio-packet.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};

describe("helpers", () => {
  test("parseLoraDatr splits spreading factor and bandwidth", () => {
    expect(value(parseLoraDatr("SF7BW125"))).toEqual({ sf: 7, bwKHz: 125 });
    expect(value(parseLoraDatr("SF12BW500"))).toEqual({ sf: 12, bwKHz: 500 });
    expect(reason(parseLoraDatr("sf7bw125"))).toMatch(/not a LoRa data rate/);
  });

  test("decodeBase64 is strict where Node's decoder is lenient", () => {
    expect(value(decodeBase64("QUJD"))).toEqual(Buffer.from("ABC"));
    expect(value(decodeBase64("QUI"))).toEqual(Buffer.from("AB"));
    expect(reason(decodeBase64("QU JD"))).toMatch(/not base64/);
    expect(value(decodeBase64("QUI="))).toEqual(Buffer.from("AB"));
    expect(reason(decodeBase64("QUJD="))).toMatch(/base64 length/);
    expect(reason(decodeBase64("Q"))).toMatch(/base64 length/);
  });

  test("hasGoodCrc accepts only stat 1 (or a forwarder that sends no stat)", () => {
    const rx = { stat: 1 } as RxPacket;
    expect(hasGoodCrc(rx)).toBe(true);
    expect(hasGoodCrc({ ...rx, stat: -1 })).toBe(false);
    expect(hasGoodCrc({ ...rx, stat: 0 })).toBe(false);
    expect(hasGoodCrc({ ...rx, stat: undefined })).toBe(true);
  });

  test("MHz and Hz convert without floating-point residue", () => {
    expect(mhzToHz(868.1)).toBe(868_100_000);
    expect(mhzToHz(866.349812)).toBe(866_349_812);
    expect(hzToMhz(923_900_000)).toBe(923.9);
    expect(hzToMhz(mhzToHz(902.3 + 0.2 * 7))).toBe(903.7);
  });
});

describe("rxpk, stat and txpk on their own", () => {
  const tx: TxPacket = {
    tmst: 1,
    freq: 869.525,
    rfch: 0,
    powe: 27,
    modu: "LORA",
    datr: "SF12BW125",
    codr: "4/5",
    ipol: true,
    data: Buffer.from([1, 2, 3]),
  };

  test("an rxpk written as JSON reads back the same", () => {
    const rx: RxPacket = {
      tmst: 7,
      freq: 868.3,
      modu: "LORA",
      datr: "SF9BW125",
      rssi: -101,
      lsnr: -3.25,
      size: 2,
      data: Buffer.from([0x40, 0x41]),
    };
    expect(value(decodeRxPacket(JSON.parse(JSON.stringify(rxPacketJson(rx)))))).toEqual(rx);
  });

  test("a txpk written as JSON reads back the same and has no problem", () => {
    expect(txPacketProblem(tx)).toBeUndefined();
    expect(value(decodeTxPacket(JSON.parse(JSON.stringify(txPacketJson(tx)))))).toEqual(tx);
  });

  test("a stat keeps known members and refuses a mistyped one", () => {
    expect(value(decodeGatewayStat({ rxnb: 3, temp: 41.5, other: "x" }))).toEqual({ rxnb: 3, temp: 41.5 });
    expect(reason(decodeGatewayStat({ time: 5 }))).toMatch(/time must be a string/);
    expect(reason(decodeGatewayStat([]))).toMatch(/must be a JSON object/);
  });

  test("a txpk with a negative preamble or a bad FSK deviation has a problem", () => {
    expect(txPacketProblem({ ...tx, prea: -1 })).toMatch(/prea/);
    expect(txPacketProblem({ ...tx, modu: "FSK", datr: 50000, fdev: 1.5 })).toMatch(/fdev/);
  });
});
