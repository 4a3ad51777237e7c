import { describe, expect, test } from "vitest";
import {
  decodeDownlinkMacCommands,
  decodeUplinkMacCommands,
  encodeDownlinkMacCommands,
  encodeUplinkMacCommands,
  linkMargin,
  type DownlinkMacCommand,
  type UplinkMacCommand,
} from "./mac-commands.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
const bytes = (...b: number[]) => Buffer.from(b);

// Payload vectors from brocaar/lorawan mac_commands_test.go, with the CID byte in front.
describe("downlink MAC commands", () => {
  test.each<[DownlinkMacCommand, number[]]>([
    [{ type: "LinkCheckAns", margin: 123, gatewayCount: 234 }, [0x02, 123, 234]],
    [
      { type: "LinkADRReq", dataRate: 1, txPower: 2, channelMask: 0b100, channelMaskControl: 4, nbTrans: 5 },
      [0x03, 18, 4, 0, 69],
    ],
    [
      {
        type: "LinkADRReq",
        dataRate: 0,
        txPower: 0,
        channelMask: 0b1_0000_0000_0011,
        channelMaskControl: 0,
        nbTrans: 0,
      },
      [0x03, 0, 3, 16, 0],
    ],
    [{ type: "DutyCycleReq", maxDutyCycle: 13 }, [0x04, 13]],
    [{ type: "RXParamSetupReq", rx1DrOffset: 3, rx2DataRate: 11, frequency: 26_265_700 }, [0x05, 59, 1, 2, 4]],
    [{ type: "DevStatusReq" }, [0x06]],
    [
      { type: "NewChannelReq", channelIndex: 3, frequency: 867_100_000, minDataRate: 0, maxDataRate: 5 },
      [0x07, 3, 0x18, 0x4f, 0x84, 0x50],
    ],
    [{ type: "RXTimingSetupReq", delay: 1 }, [0x08, 1]],
    [{ type: "DlChannelReq", channelIndex: 3, frequency: 867_100_000 }, [0x0a, 3, 0x18, 0x4f, 0x84]],
    [{ type: "DeviceTimeAns", gpsSeconds: 1_400_000_000, fraction: 128 }, [0x0d, 0x00, 0x4e, 0x72, 0x53, 128]],
    [{ type: "PingSlotInfoAns" }, [0x10]],
  ])("%j is written as %j and read back", (command, wire) => {
    expect([...value(encodeDownlinkMacCommands([command]))]).toEqual(wire);
    expect(decodeDownlinkMacCommands(Buffer.from(wire))).toEqual({ commands: [command] });
  });

  test("several commands follow each other", () => {
    const cmds: DownlinkMacCommand[] = [
      { type: "DevStatusReq" },
      { type: "LinkCheckAns", margin: 20, gatewayCount: 3 },
      { type: "RXTimingSetupReq", delay: 2 },
    ];
    const wire = value(encodeDownlinkMacCommands(cmds));
    expect([...wire]).toEqual([0x06, 0x02, 20, 3, 0x08, 2]);
    expect(decodeDownlinkMacCommands(wire).commands).toEqual(cmds);
  });

  test.each<[DownlinkMacCommand, RegExp]>([
    [{ type: "LinkCheckAns", margin: 255, gatewayCount: 1 }, /margin 255 must be 0..254/],
    [
      { type: "LinkADRReq", dataRate: 16, txPower: 0, channelMask: 0, channelMaskControl: 0, nbTrans: 0 },
      /dataRate 16/,
    ],
    [
      { type: "LinkADRReq", dataRate: 0, txPower: 0, channelMask: 0x10000, channelMaskControl: 0, nbTrans: 0 },
      /16 bits/,
    ],
    [{ type: "LinkADRReq", dataRate: 0, txPower: 0, channelMask: 0, channelMaskControl: 8, nbTrans: 0 }, /0..7/],
    [{ type: "LinkADRReq", dataRate: 0, txPower: 0, channelMask: 0, channelMaskControl: 0, nbTrans: 16 }, /nbTrans/],
    [{ type: "RXParamSetupReq", rx1DrOffset: 0, rx2DataRate: 0, frequency: 869_525_050 }, /multiple of 100 Hz/],
    [{ type: "RXParamSetupReq", rx1DrOffset: 0, rx2DataRate: 0, frequency: 1_677_721_600 }, /below 1677.7216 MHz/],
    [{ type: "DutyCycleReq", maxDutyCycle: 16 }, /maxDutyCycle 16/],
    [{ type: "RXTimingSetupReq", delay: -1 }, /delay -1/],
    [{ type: "DeviceTimeAns", gpsSeconds: 2 ** 32, fraction: 0 }, /32 bits/],
  ])("%j is refused", (command, why) => {
    const r = encodeDownlinkMacCommands([command]);
    expect(reason(r)).toMatch(why);
    expect(reason(r)).toMatch(new RegExp(`^${command.type}: `));
  });

  test("an uplink command type cannot be written as a downlink", () => {
    expect(reason(encodeDownlinkMacCommands([{ type: "DevStatusAns" } as unknown as DownlinkMacCommand]))).toMatch(
      /DevStatusAns is not a MAC command of this direction/,
    );
  });
});

describe("uplink MAC commands", () => {
  test.each<[UplinkMacCommand, number[]]>([
    [{ type: "LinkCheckReq" }, [0x02]],
    [{ type: "LinkADRAns", powerAck: false, dataRateAck: false, channelMaskAck: true }, [0x03, 1]],
    [{ type: "LinkADRAns", powerAck: false, dataRateAck: true, channelMaskAck: false }, [0x03, 2]],
    [{ type: "LinkADRAns", powerAck: true, dataRateAck: false, channelMaskAck: false }, [0x03, 4]],
    [{ type: "DutyCycleAns" }, [0x04]],
    [{ type: "RXParamSetupAns", rx1DrOffsetAck: true, rx2DataRateAck: true, channelAck: true }, [0x05, 7]],
    [{ type: "DevStatusAns", battery: 0, margin: -30 }, [0x06, 0, 34]],
    [{ type: "DevStatusAns", battery: 255, margin: 30 }, [0x06, 255, 30]],
    [{ type: "DevStatusAns", battery: 127, margin: -1 }, [0x06, 127, 63]],
    [{ type: "NewChannelAns", dataRateRangeOk: true, channelFrequencyOk: false }, [0x07, 2]],
    [{ type: "RXTimingSetupAns" }, [0x08]],
    [{ type: "TxParamSetupAns" }, [0x09]],
    [{ type: "DlChannelAns", uplinkFrequencyExists: true, channelFrequencyOk: true }, [0x0a, 3]],
    [{ type: "DeviceTimeReq" }, [0x0d]],
    [{ type: "PingSlotInfoReq", periodicity: 5 }, [0x10, 5]],
  ])("%j is written as %j and read back", (command, wire) => {
    expect([...value(encodeUplinkMacCommands([command]))]).toEqual(wire);
    expect(decodeUplinkMacCommands(Buffer.from(wire))).toEqual({ commands: [command] });
  });

  test("the FOpts of brocaar/lorawan's vector are LinkCheckReq and a LinkADRAns acking mask and power", () => {
    expect(decodeUplinkMacCommands(bytes(2, 3, 5)).commands).toEqual([
      { type: "LinkCheckReq" },
      { type: "LinkADRAns", powerAck: true, dataRateAck: false, channelMaskAck: true },
    ]);
  });

  test("an unknown CID stops parsing; the commands before it are kept and the rest is reported", () => {
    expect(decodeUplinkMacCommands(bytes(0x02, 0x80, 1, 2, 0x06, 1, 2))).toEqual({
      commands: [{ type: "LinkCheckReq" }],
      skipped: { offset: 1, bytes: bytes(0x80, 1, 2, 0x06, 1, 2), reason: "unknown uplink MAC command CID 0x80" },
    });
  });

  test("a command cut short is reported, not read", () => {
    expect(decodeUplinkMacCommands(bytes(0x06, 100))).toEqual({
      commands: [],
      skipped: { offset: 0, bytes: bytes(0x06, 100), reason: "MAC command CID 0x06 needs 2 bytes, 1 left" },
    });
  });

  test("a downlink CID read in the uplink direction has the uplink meaning (CID 0x06 is DevStatusAns)", () => {
    expect(decodeUplinkMacCommands(bytes(0x06, 200, 5)).commands).toEqual([
      { type: "DevStatusAns", battery: 200, margin: 5 },
    ]);
    expect(decodeDownlinkMacCommands(bytes(0x09)).skipped?.reason).toMatch(/unknown downlink MAC command CID 0x09/);
  });

  test("empty input has no commands", () => {
    expect(decodeUplinkMacCommands(Buffer.alloc(0))).toEqual({ commands: [] });
  });

  test("DevStatusAns values out of range are refused", () => {
    expect(reason(encodeUplinkMacCommands([{ type: "DevStatusAns", battery: 256, margin: 0 }]))).toMatch(/battery 256/);
    expect(reason(encodeUplinkMacCommands([{ type: "DevStatusAns", battery: 1, margin: 32 }]))).toMatch(/margin 32/);
  });
});

describe("linkMargin", () => {
  test("is the SNR above the spreading factor's demodulation floor, in whole dB", () => {
    expect(value(linkMargin(5, 7))).toBe(12);
    expect(value(linkMargin(-15.2, 12))).toBe(4);
    expect(value(linkMargin(-10, 8))).toBe(0);
  });

  test("is clamped to 0..254", () => {
    expect(value(linkMargin(-30, 7))).toBe(0);
    expect(value(linkMargin(300, 12))).toBe(254);
  });

  test("refuses an unknown spreading factor or a missing SNR", () => {
    expect(reason(linkMargin(3, 13))).toMatch(/spreading factor 13/);
    expect(reason(linkMargin(NaN, 7))).toMatch(/SNR/);
  });
});
