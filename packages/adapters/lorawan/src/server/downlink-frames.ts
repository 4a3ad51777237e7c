/**
 * The next downlink frame of a device, built from its queue, its waiting MAC commands and an ACK (1.0.x or 1.1 rules),
 * and what sending it means for the command it carries. Shared by every way a frame goes out: the receive windows of
 * an uplink (downlinks.ts), class C at once, class B at a ping slot (class-b.ts).
 */
import { buildDownlink } from "../codec/uplink.js";
import { encodeDownlinkMacCommands } from "../mac/mac-commands.js";
import { ok, type Result } from "../codec/result.js";
import type { DeviceState, QueuedDownlink } from "./device-state.js";
import { buildDownlinkOf11 } from "./lorawan11.js";

export interface BuiltFrame {
  phy: Buffer;
  item: QueuedDownlink | undefined;
}

/** Builds the next downlink frame of the device (queued command, MAC commands, ACK), using up one FCntDown. */
export function nextFrame(state: DeviceState, ack: boolean): Result<BuiltFrame> {
  const s = state.session!;
  const item = state.awaitingAck ? undefined : state.queue[0];
  // An FPort 0 command carries MAC commands in its payload: the queued ones wait for the next frame.
  let macs = item?.fPort === 0 ? [] : state.macOut;
  let fOpts = encodeDownlinkMacCommands(macs);
  while (fOpts.ok && fOpts.value.length > 15) {
    macs = macs.slice(0, -1);
    fOpts = encodeDownlinkMacCommands(macs);
  }
  if (item?.fPort !== 0) state.macOut = [];
  const next = {
    ack,
    confirmed: item?.confirmed ?? false,
    fPending: state.queue.length > 1,
    fOpts: fOpts.ok ? fOpts.value : Buffer.alloc(0),
    ...(item ? { fPort: item.fPort, payload: item.payload } : {}),
  };
  let phy: Buffer;
  if (s.v11) {
    const built = buildDownlinkOf11(state, s, s.v11, next);
    if (!built.ok) return built;
    phy = built.value;
  } else {
    const built = buildDownlink({
      devAddr: s.devAddr,
      nwkSKey: s.nwkSKey,
      appSKey: s.appSKey,
      fcntDown: s.fcntDown,
      ...next,
    });
    if (!built.ok) return built;
    s.fcntDown = built.value.nextFCntDown;
    phy = built.value.phy;
  }
  state.dirty = true;
  if (item) state.queue.shift();
  return ok({ phy, item });
}

/** A command left the network: unconfirmed ones are SENT, confirmed ones wait for the device's ACK. */
export function sent(state: DeviceState, item: QueuedDownlink | undefined): void {
  if (!item) return;
  if (item.confirmed) state.awaitingAck = item;
  else item.settle({ status: "SENT" });
}
