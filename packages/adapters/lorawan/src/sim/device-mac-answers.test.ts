import { describe, expect, test } from "vitest";
import { REGIONS } from "../codec/region.js";
import { answerMacCommands, type DeviceRadioSettings } from "./device-mac-answers.js";

const settings: DeviceRadioSettings = {
  dataRate: 5,
  txPower: 0,
  nbTrans: 1,
  rx1DrOffset: 0,
  rx2DataRate: 0,
  rx2Frequency: 869_525_000,
  rxDelay: 1,
  maxDutyCycle: 0,
  extraChannels: {},
};
const behaviour = { battery: 254, margin: 5 };

describe("answerMacCommands", () => {
  test("each request of the network gets its answer, in order, and the settings follow", () => {
    const r = answerMacCommands(
      [
        { type: "RXParamSetupReq", rx1DrOffset: 1, rx2DataRate: 3, frequency: 869_525_000 },
        { type: "RXTimingSetupReq", delay: 3 },
        { type: "DutyCycleReq", maxDutyCycle: 4 },
        { type: "NewChannelReq", channelIndex: 3, frequency: 867_100_000, minDataRate: 0, maxDataRate: 5 },
        { type: "DevStatusReq" },
        { type: "DeviceTimeAns", gpsSeconds: 1_300_000_000, fraction: 128 },
      ],
      settings,
      REGIONS.EU868,
      behaviour,
    );
    expect(r.answers).toEqual([
      { type: "RXParamSetupAns", rx1DrOffsetAck: true, rx2DataRateAck: true, channelAck: true },
      { type: "RXTimingSetupAns" },
      { type: "DutyCycleAns" },
      { type: "NewChannelAns", dataRateRangeOk: true, channelFrequencyOk: true },
      { type: "DevStatusAns", battery: 254, margin: 5 },
    ]);
    expect(r.settings).toMatchObject({ rx1DrOffset: 1, rx2DataRate: 3, rxDelay: 3, maxDutyCycle: 4 });
    expect(r.settings.extraChannels).toEqual({ 3: 867_100_000 });
    expect(r.deviceTime).toEqual({ gpsSeconds: 1_300_000_000, fraction: 128 });
    expect(settings.extraChannels).toEqual({});
  });

  test("a LinkADRReq with a data rate the region lacks is refused and changes nothing; DR 15 keeps the rate", () => {
    const adr = { type: "LinkADRReq" as const, txPower: 3, channelMask: 7, channelMaskControl: 0, nbTrans: 2 };
    const bad = answerMacCommands([{ ...adr, dataRate: 9 }], settings, REGIONS.EU868, behaviour);
    expect(bad.answers).toEqual([{ type: "LinkADRAns", powerAck: true, dataRateAck: false, channelMaskAck: true }]);
    expect(bad.settings).toMatchObject({ dataRate: 5, txPower: 0, nbTrans: 1 });
    const keep = answerMacCommands([{ ...adr, dataRate: 15 }], settings, REGIONS.EU868, behaviour);
    expect(keep.settings).toMatchObject({ dataRate: 5, txPower: 3, nbTrans: 2 });
  });

  test("an RXParamSetupReq with an offset beyond the region's is refused and leaves RX1 as it was", () => {
    const r = answerMacCommands(
      [{ type: "RXParamSetupReq", rx1DrOffset: 7, rx2DataRate: 0, frequency: 869_525_000 }],
      settings,
      REGIONS.US915,
      behaviour,
    );
    expect(r.answers[0]).toMatchObject({ rx1DrOffsetAck: false });
    expect(r.settings.rx1DrOffset).toBe(0);
  });
});
