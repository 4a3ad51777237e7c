import {
  AdapterMessageSchema,
  create,
  type AdapterMessage,
  type Downlink as PbDownlink,
  type LoraDevice as PbLoraDevice,
} from "@iot/proto";
import type { LoraCounterReport, LoraDeviceInfo, LoraMulticastDownlink } from "./lora-types.js";

/** A LoRa device's keys, settings and session, with plain numbers. */
export function fromLoraDevice(l: PbLoraDevice): LoraDeviceInfo {
  const s = l.session;
  return {
    activation: l.activation === "abp" ? "abp" : "otaa",
    devEui: l.devEui,
    appEui: l.appEui,
    appKey: l.appKey,
    canJoin: l.canJoin,
    fcntCheck: l.fcntCheck,
    region: l.region,
    classC: l.classC,
    classB: l.classB,
    pingSlotPeriodicity: l.pingSlotPeriodicity,
    session: s
      ? {
          devAddr: s.devAddr,
          nwkSKey: s.nwkSKey,
          appSKey: s.appSKey,
          fcntUp: s.fcntUp,
          fcntDown: s.fcntDown,
          ...(s.sNwkSIntKey
            ? {
                lorawan11: {
                  fNwkSIntKey: s.fNwkSIntKey,
                  sNwkSIntKey: s.sNwkSIntKey,
                  nwkSEncKey: s.nwkSEncKey,
                  nFCntDown: s.nFcntDown,
                  aFCntDown: s.aFcntDown,
                  joinNonce: s.joinNonce,
                },
              }
            : {}),
        }
      : null,
    usedDevNonces: [...l.usedDevNonces],
    macVersion: l.macVersion === "1.1" ? "1.1" : "1.0.x",
    nwkKey: l.nwkKey,
    nextJoinNonce: l.nextJoinNonce,
  };
}

/** A LoraCounters stream message. */
export function loraCountersMessage(counters: readonly LoraCounterReport[]): AdapterMessage {
  return create(AdapterMessageSchema, {
    kind: {
      case: "loraCounters",
      value: {
        counters: counters.map((c) => ({
          deviceIntId: BigInt(c.deviceIntId),
          fcntUp: c.fcntUp,
          fcntDown: c.fcntDown,
        })),
      },
    },
  });
}

/** A multicast downlink's session in plain numbers. */
export function fromLoraMulticast(m: NonNullable<PbDownlink["loraMulticast"]>): LoraMulticastDownlink {
  return {
    mcAddr: m.mcAddr,
    mcNwkSKey: m.mcNwkSKey,
    mcAppSKey: m.mcAppSKey,
    fcnt: m.fcnt,
    ...(m.dataRate !== undefined ? { dataRate: m.dataRate } : {}),
    ...(m.frequencyHz !== undefined ? { frequencyHz: Number(m.frequencyHz) } : {}),
    deviceIntIds: m.deviceIntIds.map(Number),
  };
}
