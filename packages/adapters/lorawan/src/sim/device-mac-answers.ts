// How a simulated class A device reacts to the MAC commands of a downlink (LoRaWAN 1.0.2 §5): the answers it owes
// in its next uplink and the radio settings it adopts. Pure, so the simulator's MAC behaviour is tested on its own.
import type { Region } from "../codec/region.js";
import type { DownlinkMacCommand, UplinkMacCommand } from "../mac/mac-commands.js";

/** The radio settings of a simulated device that the network changes with MAC commands. */
export interface DeviceRadioSettings {
  /** Uplink data rate (DR index of the region). */
  dataRate: number;
  /** TXPower index (0 = max EIRP, each step −2 dB). */
  txPower: number;
  /** Transmissions of each unconfirmed uplink (1..15). */
  nbTrans: number;
  /** The last ChMask and ChMaskCntl a LinkADRReq set. */
  channelMask?: { mask: number; control: number };
  rx1DrOffset: number;
  rx2DataRate: number;
  /** RX2 frequency in Hz. */
  rx2Frequency: number;
  /** RX1 delay in s (0 counts as 1). */
  rxDelay: number;
  /** Aggregated duty cycle limit as 1 / 2^maxDutyCycle. */
  maxDutyCycle: number;
  /** Channels added by NewChannelReq (index → Hz). */
  extraChannels: Record<number, number>;
}

/** What the device reports and how it answers LinkADRReq (all accepted unless told otherwise). */
export interface DeviceMacBehaviour {
  /** DevStatusAns battery: 0 external power, 1..254 level, 255 unknown. */
  battery: number;
  /** DevStatusAns margin: SNR of the last downlink in dB, −32..31. */
  margin: number;
  /** Force LinkADRAns bits to false, to test a network facing a device that refuses ADR. */
  refuseLinkAdr?: { power?: boolean; dataRate?: boolean; channelMask?: boolean };
}

/** The device's reaction to a downlink's MAC commands. */
export interface MacReaction {
  answers: UplinkMacCommand[];
  settings: DeviceRadioSettings;
  linkCheck?: { margin: number; gatewayCount: number };
  deviceTime?: { gpsSeconds: number; fraction: number };
}

/**
 * Answers a downlink's MAC commands as a LoRaWAN 1.0.x device does: DevStatusReq → DevStatusAns, LinkADRReq →
 * LinkADRAns (adopting the data rate and power when both are acked; DR 15 / power 15 keep the current ones), the
 * *SetupReq commands → their Ans, and keeps LinkCheckAns and DeviceTimeAns.
 */
export function answerMacCommands(
  commands: readonly DownlinkMacCommand[],
  current: DeviceRadioSettings,
  region: Region,
  behaviour: DeviceMacBehaviour,
): MacReaction {
  const settings: DeviceRadioSettings = { ...current, extraChannels: { ...current.extraChannels } };
  const reaction: MacReaction = { answers: [], settings };
  for (const c of commands) {
    switch (c.type) {
      case "DevStatusReq":
        reaction.answers.push({ type: "DevStatusAns", battery: behaviour.battery, margin: behaviour.margin });
        break;
      case "LinkADRReq": {
        const refuse = behaviour.refuseLinkAdr ?? {};
        const dataRateAck = !refuse.dataRate && (c.dataRate === 15 || region.uplinkDataRates[c.dataRate] !== undefined);
        const powerAck = !refuse.power && c.txPower <= 15;
        const channelMaskAck = !refuse.channelMask && !(c.channelMask === 0 && c.channelMaskControl === 0);
        if (dataRateAck && powerAck && channelMaskAck) {
          if (c.dataRate !== 15) settings.dataRate = c.dataRate;
          if (c.txPower !== 15) settings.txPower = c.txPower;
          if (c.nbTrans !== 0) settings.nbTrans = c.nbTrans;
          settings.channelMask = { mask: c.channelMask, control: c.channelMaskControl };
        }
        reaction.answers.push({ type: "LinkADRAns", powerAck, dataRateAck, channelMaskAck });
        break;
      }
      case "DutyCycleReq":
        settings.maxDutyCycle = c.maxDutyCycle;
        reaction.answers.push({ type: "DutyCycleAns" });
        break;
      case "RXParamSetupReq": {
        const rx2DataRateAck = region.downlinkDataRates[c.rx2DataRate] !== undefined;
        const rx1DrOffsetAck = c.rx1DrOffset <= region.maxRx1DrOffset;
        if (rx2DataRateAck && rx1DrOffsetAck) {
          settings.rx1DrOffset = c.rx1DrOffset;
          settings.rx2DataRate = c.rx2DataRate;
          settings.rx2Frequency = c.frequency;
        }
        reaction.answers.push({ type: "RXParamSetupAns", rx1DrOffsetAck, rx2DataRateAck, channelAck: true });
        break;
      }
      case "NewChannelReq":
        settings.extraChannels[c.channelIndex] = c.frequency;
        reaction.answers.push({ type: "NewChannelAns", dataRateRangeOk: true, channelFrequencyOk: true });
        break;
      case "RXTimingSetupReq":
        settings.rxDelay = c.delay;
        reaction.answers.push({ type: "RXTimingSetupAns" });
        break;
      case "DlChannelReq":
        reaction.answers.push({ type: "DlChannelAns", uplinkFrequencyExists: true, channelFrequencyOk: true });
        break;
      case "LinkCheckAns":
        reaction.linkCheck = { margin: c.margin, gatewayCount: c.gatewayCount };
        break;
      case "DeviceTimeAns":
        reaction.deviceTime = { gpsSeconds: c.gpsSeconds, fraction: c.fraction };
        break;
    }
  }
  return reaction;
}
