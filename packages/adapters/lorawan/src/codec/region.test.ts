import { describe, expect, test } from "vitest";
import {
  decodeCfList,
  downlinkDatr,
  encodeCfListChannelMask,
  encodeCfListFrequencies,
  EU868_EXTRA_CHANNELS,
  maxPayloadSize,
  planDownlink,
  REGIONS,
  regionByName,
  uplinkDataRate,
} from "./region.js";
import type { RxPacket } from "./radio-packet.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};

const { EU868, US915, CN470 } = REGIONS;
const frame = Buffer.alloc(20, 0x60);
const uplink = (freq: number, datr: string | number, tmst = 1_000_000, modu: "LORA" | "FSK" = "LORA"): RxPacket => ({
  tmst,
  freq,
  modu,
  datr,
  rssi: -60,
  lsnr: 7,
  size: 20,
  data: frame,
});

describe("regionByName", () => {
  test.each([
    ["EU868", "EU868"],
    ["eu868", "EU868"],
    ["EU863-870", "EU868"],
    ["eu863_870", "EU868"],
    ["US915", "US915"],
    ["US902-928", "US915"],
    [" us915 ", "US915"],
    ["CN470", "CN470"],
    ["CN470-510", "CN470"],
  ])("%j names %s", (name, region) => {
    expect(value(regionByName(name)).name).toBe(region);
  });

  test("an unknown or missing region is refused with the supported names", () => {
    expect(reason(regionByName("EU999"))).toMatch(
      /region "EU999" is not supported: use one of EU868, US915, CN470, AU915/,
    );
    expect(reason(regionByName(undefined))).toMatch(/must be a name/);
  });
});

describe("data rates", () => {
  test("SF7BW125 is DR5 in EU868 and CN470 and DR3 in US915", () => {
    const rx = { modu: "LORA" as const, datr: "SF7BW125" };
    expect(value(uplinkDataRate(EU868, rx))).toBe(5);
    expect(value(uplinkDataRate(CN470, rx))).toBe(5);
    expect(value(uplinkDataRate(US915, rx))).toBe(3);
  });

  test.each([
    [EU868, "SF12BW125", 0],
    [EU868, "SF7BW250", 6],
    [US915, "SF10BW125", 0],
    [US915, "SF8BW500", 4],
    [CN470, "SF12BW125", 0],
  ])("%s uplink %s is DR%i", (region, datr, dr) => {
    expect(value(uplinkDataRate(region, { modu: "LORA", datr }))).toBe(dr);
  });

  test("EU868 DR7 is FSK at 50 kbit/s", () => {
    expect(value(uplinkDataRate(EU868, { modu: "FSK", datr: 50000 }))).toBe(7);
    expect(value(downlinkDatr(EU868, 7))).toBe(50000);
  });

  test("a data rate the region does not use for uplinks is refused", () => {
    expect(reason(uplinkDataRate(US915, { modu: "LORA", datr: "SF12BW125" }))).toMatch(
      /LORA SF12BW125 is not an uplink data rate of US915/,
    );
    expect(reason(uplinkDataRate(CN470, { modu: "FSK", datr: 50000 }))).toMatch(/not an uplink data rate/);
    expect(reason(uplinkDataRate(EU868, { modu: "LORA", datr: "SF7" }))).toMatch(/not an uplink data rate/);
  });

  test("US915 downlinks use DR8..13 at 500 kHz", () => {
    expect(value(downlinkDatr(US915, 8))).toBe("SF12BW500");
    expect(value(downlinkDatr(US915, 13))).toBe("SF7BW500");
    expect(reason(downlinkDatr(US915, 3))).toMatch(/DR3 is not a downlink data rate of US915/);
  });
});

describe("RX1 data rate", () => {
  test("EU868 and CN470: the uplink DR less the offset, not below DR0 (RP §2.2.7 table)", () => {
    expect([0, 1, 2, 3, 4, 5].map((o) => value(EU868.rx1DataRate(7, o)))).toEqual([7, 6, 5, 4, 3, 2]);
    expect([0, 1, 2, 3, 4, 5].map((o) => value(EU868.rx1DataRate(0, o)))).toEqual([0, 0, 0, 0, 0, 0]);
    expect([0, 1, 2, 3, 4, 5].map((o) => value(CN470.rx1DataRate(3, o)))).toEqual([3, 2, 1, 0, 0, 0]);
  });

  test.each([
    [0, [10, 9, 8, 8]],
    [1, [11, 10, 9, 8]],
    [2, [12, 11, 10, 9]],
    [3, [13, 12, 11, 10]],
    [4, [13, 13, 12, 11]],
  ])("US915 uplink DR%i gives RX1 %j for offsets 0..3 (RP §2.5.7 table)", (dr, expected) => {
    expect([0, 1, 2, 3].map((o) => value(US915.rx1DataRate(dr, o)))).toEqual(expected);
  });

  test("an offset beyond the region's range or an unknown uplink DR is refused", () => {
    expect(reason(EU868.rx1DataRate(5, 6))).toMatch(/RX1DROffset 6 must be 0..5 in EU868/);
    expect(reason(US915.rx1DataRate(0, 4))).toMatch(/RX1DROffset 4 must be 0..3 in US915/);
    expect(reason(US915.rx1DataRate(8, 0))).toMatch(/DR8 is not an uplink data rate of US915/);
    expect(reason(EU868.rx1DataRate(2, -1))).toMatch(/RX1DROffset -1/);
  });
});

describe("RX1 frequency", () => {
  test("EU868 answers on the uplink frequency, inside 863–870 MHz", () => {
    expect(value(EU868.rx1Frequency(868_100_000))).toBe(868_100_000);
    expect(value(EU868.rx1Frequency(867_900_000))).toBe(867_900_000);
    expect(reason(EU868.rx1Frequency(915_000_000))).toMatch(/915 MHz is outside the EU868 band/);
  });

  test.each([
    [902_300_000, 923_300_000], // channel 0
    [903_700_000, 927_500_000], // channel 7
    [903_900_000, 923_300_000], // channel 8 (sub-band 2, as most US gateways listen)
    [904_100_000, 923_900_000], // channel 9
    [905_300_000, 927_500_000], // channel 15
    [914_900_000, 927_500_000], // channel 63
    [903_000_000, 923_300_000], // channel 64 (500 kHz)
    [904_600_000, 923_900_000], // channel 65
    [914_200_000, 927_500_000], // channel 71
  ])("US915 uplink %i Hz answers on %i Hz (downlink channel = uplink channel mod 8)", (up, down) => {
    expect(value(US915.rx1Frequency(up))).toBe(down);
  });

  test("a US915 frequency off the channel grid is refused", () => {
    expect(reason(US915.rx1Frequency(902_400_000))).toMatch(/902.4 MHz is not a US915 uplink channel/);
    expect(reason(US915.rx1Frequency(915_800_000))).toMatch(/not a US915 uplink channel/);
  });

  test.each([
    [470_300_000, 500_300_000], // channel 0
    [479_700_000, 509_700_000], // channel 47
    [479_900_000, 500_300_000], // channel 48
    [489_300_000, 509_700_000], // channel 95
  ])("CN470 uplink %i Hz answers on %i Hz (downlink channel = uplink channel mod 48)", (up, down) => {
    expect(value(CN470.rx1Frequency(up))).toBe(down);
  });

  test("a CN470 frequency off its 96 channels is refused", () => {
    expect(reason(CN470.rx1Frequency(489_500_000))).toMatch(/489.5 MHz is not a CN470 uplink channel/);
    expect(reason(CN470.rx1Frequency(470_400_000))).toMatch(/not a CN470 uplink channel/);
  });
});

describe("defaults", () => {
  test("RX2 is 869.525 MHz DR0 in EU868, 923.3 MHz DR8 in US915 and 505.3 MHz DR0 in CN470", () => {
    expect(EU868.rx2).toEqual({ frequency: 869_525_000, dataRate: 0 });
    expect(US915.rx2).toEqual({ frequency: 923_300_000, dataRate: 8 });
    expect(CN470.rx2).toEqual({ frequency: 505_300_000, dataRate: 0 });
  });

  test("RX1 opens after 1 s and a JoinAccept after 5 s (RX2 one second later)", () => {
    for (const r of [EU868, US915, CN470])
      expect([r.receiveDelay1, r.joinAcceptDelay1, r.joinAcceptDelay2]).toEqual([1, 5, 6]);
  });

  test("maximum payload sizes are the repeater-compatible ones, with N = M − 8", () => {
    expect(value(maxPayloadSize(EU868, 0))).toEqual({ m: 59, n: 51 });
    expect(value(maxPayloadSize(EU868, 3))).toEqual({ m: 123, n: 115 });
    expect(value(maxPayloadSize(EU868, 5))).toEqual({ m: 230, n: 222 });
    expect(value(maxPayloadSize(US915, 0))).toEqual({ m: 19, n: 11 });
    expect(value(maxPayloadSize(US915, 8))).toEqual({ m: 41, n: 33 });
    expect(value(maxPayloadSize(US915, 13))).toEqual({ m: 230, n: 222 });
    expect(value(maxPayloadSize(CN470, 5))).toEqual({ m: 230, n: 222 });
    expect(reason(maxPayloadSize(US915, 6))).toMatch(/DR6 has no payload size in US915/);
  });

  test("only EU868 sends a CFList by default: its 5 extra channels", () => {
    expect(value(decodeCfList(EU868.defaultCfList!))).toEqual({ type: 0, frequencies: [...EU868_EXTRA_CHANNELS] });
    expect(US915.defaultCfList).toBeUndefined();
    expect(CN470.defaultCfList).toBeUndefined();
  });

  test("downlink power stays within each region's limit", () => {
    expect(EU868.downlinkPower(868_100_000)).toBe(14);
    expect(EU868.downlinkPower(869_525_000)).toBe(27);
    expect(US915.downlinkPower(923_300_000)).toBe(20);
    expect(CN470.downlinkPower(505_300_000)).toBe(19);
  });
});

describe("CFList", () => {
  // Vectors from brocaar/lorawan payload_test.go TestCFList.
  test("867.1–867.9 MHz encode as 3-byte little-endian multiples of 100 Hz and CFListType 0", () => {
    const bytes = value(encodeCfListFrequencies([867_100_000, 867_300_000, 867_500_000, 867_700_000, 867_900_000]));
    expect([...bytes]).toEqual([24, 79, 132, 232, 86, 132, 184, 94, 132, 136, 102, 132, 88, 110, 132, 0]);
  });

  test("channel masks encode one bit per channel and CFListType 1", () => {
    const first8 = value(encodeCfListChannelMask([0, 1, 2, 3, 4, 5, 6, 7]));
    expect([...first8]).toEqual([255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    const second = value(encodeCfListChannelMask([16, 17, 18, 19, 20, 21, 22, 23]));
    expect([...second]).toEqual([0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  test("a US915 sub-band 2 mask (channels 8–15 and 65) decodes back", () => {
    const channels = [8, 9, 10, 11, 12, 13, 14, 15, 65];
    expect(value(decodeCfList(value(encodeCfListChannelMask(channels))))).toEqual({ type: 1, channels });
  });

  test("fewer than 5 frequencies leave the rest zero, and decoding leaves zeros out", () => {
    const bytes = value(encodeCfListFrequencies([867_100_000]));
    expect(bytes.subarray(3).every((b) => b === 0)).toBe(true);
    expect(value(decodeCfList(bytes))).toEqual({ type: 0, frequencies: [867_100_000] });
  });

  test("bad input is refused", () => {
    expect(reason(encodeCfListFrequencies([868_100_001]))).toMatch(/multiple of 100 Hz/);
    expect(reason(encodeCfListFrequencies([1, 2, 3, 4, 5, 6].map((i) => i * 100)))).toMatch(/at most 5/);
    expect(reason(encodeCfListChannelMask([72]))).toMatch(/channel 72 must be 0..71/);
    expect(reason(decodeCfList(Buffer.alloc(15)))).toMatch(/16 bytes, got 15/);
    const t2 = Buffer.alloc(16);
    t2[15] = 2;
    expect(reason(decodeCfList(t2))).toMatch(/CFListType 2/);
  });
});

describe("planDownlink", () => {
  test("EU868 RX1 answers on the uplink's frequency and data rate one second later, with inverted polarity", () => {
    const tx = value(planDownlink(EU868, uplink(868.1, "SF7BW125", 1_000_000), frame, { window: "rx1", kind: "data" }));
    expect(tx).toEqual({
      tmst: 2_000_000,
      freq: 868.1,
      rfch: 0,
      powe: 14,
      modu: "LORA",
      datr: "SF7BW125",
      codr: "4/5",
      ipol: true,
      data: frame,
    });
  });

  test("EU868 RX2 answers on 869.525 MHz SF12 two seconds later at 27 dBm", () => {
    const tx = value(planDownlink(EU868, uplink(868.3, "SF7BW125", 1_000_000), frame, { window: "rx2", kind: "data" }));
    expect(tx).toMatchObject({ tmst: 3_000_000, freq: 869.525, datr: "SF12BW125", powe: 27, ipol: true });
  });

  test("a JoinAccept waits 5 s in RX1 and 6 s in RX2", () => {
    const up = uplink(868.5, "SF9BW125", 10_000_000);
    expect(value(planDownlink(EU868, up, frame, { window: "rx1", kind: "join" })).tmst).toBe(15_000_000);
    expect(value(planDownlink(EU868, up, frame, { window: "rx2", kind: "join" })).tmst).toBe(16_000_000);
  });

  test("the RX1 delay and offset of the device are applied; RxDelay 0 means 1 s", () => {
    const up = uplink(868.1, "SF7BW125", 0);
    const tx = value(planDownlink(EU868, up, frame, { window: "rx1", kind: "data", rxDelay: 3, rx1DrOffset: 2 }));
    expect(tx).toMatchObject({ tmst: 3_000_000, datr: "SF9BW125" });
    expect(value(planDownlink(EU868, up, frame, { window: "rx2", kind: "data", rxDelay: 3 })).tmst).toBe(4_000_000);
    expect(value(planDownlink(EU868, up, frame, { window: "rx1", kind: "data", rxDelay: 0 })).tmst).toBe(1_000_000);
  });

  test("tmst wraps at 2^32 like the concentrator's counter", () => {
    const tx = value(
      planDownlink(EU868, uplink(868.1, "SF7BW125", 4_294_000_000), frame, { window: "rx1", kind: "join" }),
    );
    expect(tx.tmst).toBe(4_294_000_000 + 5_000_000 - 2 ** 32);
  });

  test("US915 RX1 maps channel and data rate onto the 500 kHz downlink channels", () => {
    const tx = value(planDownlink(US915, uplink(904.1, "SF10BW125"), frame, { window: "rx1", kind: "data" }));
    expect(tx).toMatchObject({ freq: 923.9, datr: "SF10BW500", powe: 20 });
    const rx2 = value(planDownlink(US915, uplink(904.1, "SF10BW125"), frame, { window: "rx2", kind: "data" }));
    expect(rx2).toMatchObject({ freq: 923.3, datr: "SF12BW500" });
  });

  test("CN470 RX1 answers on the downlink channel paired with the uplink channel", () => {
    const tx = value(planDownlink(CN470, uplink(471.9, "SF12BW125"), frame, { window: "rx1", kind: "data" }));
    expect(tx).toMatchObject({ freq: 501.9, datr: "SF12BW125", powe: 19 });
    const rx2 = value(planDownlink(CN470, uplink(471.9, "SF12BW125"), frame, { window: "rx2", kind: "join" }));
    expect(rx2).toMatchObject({ freq: 505.3, datr: "SF12BW125" });
  });

  test("the device's RX2 settings and a power override replace the region's", () => {
    const tx = value(
      planDownlink(EU868, uplink(868.1, "SF7BW125"), frame, {
        window: "rx2",
        kind: "data",
        rx2DataRate: 3,
        rx2Frequency: 869_525_000,
        power: 20,
      }),
    );
    expect(tx).toMatchObject({ datr: "SF9BW125", freq: 869.525, powe: 20 });
  });

  test("an EU868 FSK uplink is answered in FSK with 25 kHz deviation and no polarity inversion", () => {
    const tx = value(planDownlink(EU868, uplink(868.8, 50000, 0, "FSK"), frame, { window: "rx1", kind: "data" }));
    expect(tx).toMatchObject({ modu: "FSK", datr: 50000, fdev: 25000 });
    expect(tx.ipol).toBeUndefined();
  });

  test("a frame longer than the window's data rate allows is refused (M + MHDR + MIC)", () => {
    const up = uplink(868.1, "SF12BW125");
    expect(value(planDownlink(EU868, up, Buffer.alloc(64), { window: "rx1", kind: "data" })).data).toHaveLength(64);
    expect(reason(planDownlink(EU868, up, Buffer.alloc(65), { window: "rx1", kind: "data" }))).toMatch(
      /65-byte frame is over the 64 bytes DR0 allows in EU868/,
    );
    const us = uplink(902.3, "SF10BW125");
    expect(reason(planDownlink(US915, us, Buffer.alloc(47), { window: "rx2", kind: "data" }))).toMatch(/46 bytes DR8/);
  });

  test("RX1 is refused for an uplink off the region's channels or data rates; RX2 still works", () => {
    const up = uplink(915.0, "SF7BW125");
    expect(reason(planDownlink(EU868, up, frame, { window: "rx1", kind: "data" }))).toMatch(/outside the EU868 band/);
    expect(value(planDownlink(EU868, up, frame, { window: "rx2", kind: "data" })).freq).toBe(869.525);
    const wrongDr = uplink(868.1, "SF7BW500");
    expect(reason(planDownlink(EU868, wrongDr, frame, { window: "rx1", kind: "data" }))).toMatch(
      /not an uplink data rate/,
    );
  });

  test("an RX2 data rate the region cannot send, or an RxDelay over 15 s, is refused", () => {
    const up = uplink(868.1, "SF7BW125");
    expect(reason(planDownlink(US915, up, frame, { window: "rx2", kind: "data", rx2DataRate: 2 }))).toMatch(
      /DR2 is not a downlink data rate of US915/,
    );
    expect(reason(planDownlink(EU868, up, frame, { window: "rx1", kind: "data", rxDelay: 16 }))).toMatch(
      /rxDelay 16 must be 0..15/,
    );
  });
});
