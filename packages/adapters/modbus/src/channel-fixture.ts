import { parseChannelConfig, type ChannelConfig } from "./channel-config.js";

/**
 * Builders of the pushed channel configuration for tests and benchmarks, in the registry's JSON shape
 * (docs/devices/modbus.md), so what is tested is what the registry sends.
 */

/** One `device` entry: data point `tagname` of `deviceID` at `<unit>!<registerAddr>`. */
export function tagEntry(
  deviceID: string,
  unit: number,
  tagname: string,
  registerAddr: string,
  tagtype: number,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    tagname,
    tagaddr: `${unit}!${registerAddr}`,
    tagtype,
    tagarrsz: 0,
    tagattr: "R",
    taglogtime: 0,
    tagupdtime: 0,
    tagstatus: 0,
    tagsubno: unit,
    deviceID,
    upperLimit: null,
    lowerLimit: null,
    ...over,
  };
}

/** A Modbus TCP channel to 127.0.0.1:`port` with `device` entries; `over` replaces settings. */
export function tcpChannel(
  port: number,
  device: readonly unknown[],
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    chnix: 0,
    chnno: 1,
    chnname: "test",
    chntype: "tcp",
    chndrv: "modbus-tcp",
    tcphost: "127.0.0.1",
    tcpport: port,
    timeout: 200,
    retries: 0,
    pollInterval: 50,
    byteOrder: "ABCD",
    maxGap: 8,
    device,
    ...over,
  };
}

/** The payload bytes of a configuration with these channels. */
export function configPayload(...channels: readonly unknown[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ channel: channels }));
}

/** Parses channels as the adapter would; throws on a refusal (a fixture bug). */
export function parsedConfig(...channels: readonly unknown[]): ChannelConfig {
  const r = parseChannelConfig(configPayload(...channels));
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}
