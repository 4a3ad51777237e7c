/**
 * The store's key of an uplink (device_events.msg_key, unique: a second write of a key is ignored).
 *
 * By default `<adapter instance>:<seq>`: an adapter that replays its unacknowledged uplinks after a lost stream
 * sends them under the keys it used before. A LoRaWAN frame under a strict counter policy names itself
 * (`frameId` in its metadata: DevAddr, FCnt, MIC), and a retransmission or replay of it is byte for byte the same
 * frame — whichever network-server process heard it. Keyed by that, the frame is stored once even when a restarted
 * network server accepted it again from a counter reported before the crash.
 */
export function uplinkMsgKey(instanceId: string, seq: bigint, deviceIntId: number, metadata: string): string {
  const frameId = metadata.includes('"frameId"') ? frameIdOf(metadata) : undefined;
  return frameId ? `lora:${deviceIntId}:${frameId}` : `${instanceId}:${seq}`;
}

function frameIdOf(metadata: string): string | undefined {
  try {
    const id = (JSON.parse(metadata) as { frameId?: unknown }).frameId;
    return typeof id === "string" && id.length > 0 && id.length <= 64 ? id : undefined;
  } catch {
    return undefined;
  }
}
