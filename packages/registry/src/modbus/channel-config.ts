/**
 * The channel configuration of a Modbus gateway (spec: gateway control log `payload`, a `channel` array), built
 * from the gateway's channel settings, its devices and their data points. The registry pushes it to the gateway's
 * Modbus adapter on the topic MODBUS_CONFIG_TOPIC; docs/devices/modbus.md documents every member.
 */

/** The gateway command topic the configuration travels on. */
export const MODBUS_CONFIG_TOPIC = "config/modbus";

/** The gateway's `channel` settings as stored (the API applied the defaults). */
export interface ChannelSettings {
  chntype: "tcp" | "rtu";
  chnname?: string;
  tcphost?: string;
  tcpport: number;
  ttycom?: string;
  ttybaud: number;
  ttydata: number;
  ttypari: "none" | "even" | "odd";
  ttystop: number;
  timeout: number;
  retries: number;
  pollInterval: number;
  byteOrder: string;
  maxGap: number;
}

/** What unset members of stored settings are (the API stores them with these defaults anyway). */
const BASE_CHANNEL: ChannelSettings = {
  chntype: "tcp",
  tcpport: 502,
  ttybaud: 9600,
  ttydata: 8,
  ttypari: "none",
  ttystop: 1,
  timeout: 1000,
  retries: 1,
  pollInterval: 1000,
  byteOrder: "ABCD",
  maxGap: 8,
};

/** Settings of a Modbus gateway with none stored: Modbus TCP to a slave on the gateway's own host. */
const DEFAULT_CHANNEL: ChannelSettings = { ...BASE_CHANNEL, tcphost: "127.0.0.1" };

/** A data point of a slave's product that has a register. */
interface SlavePoint {
  dataPointId: string;
  pointDataType: number;
  dataTransType: number;
  binarySize: number | null;
  registerAddr: string;
  upperLimit: number | null;
  lowerLimit: number | null;
}

/** A device of the gateway with a modBusIndex, and its own poll interval (ms) when it has one. */
export interface Slave {
  deviceId: string;
  modBusIndex: number;
  pollInterval: number | null;
  points: readonly SlavePoint[];
}

/** One `device` entry of a channel: a data point of one slave. */
export interface ChannelTag {
  tagname: string;
  tagaddr: string;
  tagtype: number;
  tagarrsz: number;
  tagattr: "R" | "W" | "RW";
  taglogtime: number;
  tagupdtime: number;
  tagstatus: number;
  tagsubno: number;
  deviceID: string;
  upperLimit: number | null;
  lowerLimit: number | null;
}

/** The pushed object: one channel per gateway. */
export interface ChannelConfig {
  channel: Array<
    Omit<ChannelSettings, "chnname" | "tcphost" | "ttycom"> & {
      chnix: number;
      chnno: number;
      chnname: string;
      chndrv: "modbus-tcp" | "modbus-rtu";
      tcphost: string;
      ttycom: string;
      ttycts: number;
      ttyrts: number;
      ttyorts: number;
      ttymodm: number;
      device: ChannelTag[];
    }
  >;
}

const ATTR: Readonly<Record<number, ChannelTag["tagattr"]>> = { 1: "R", 2: "W", 3: "RW" };

/** Reads stored settings; unset or unreadable ones are the defaults (the API only stores valid settings). */
export function channelSettings(stored: string | null): ChannelSettings {
  if (!stored) return DEFAULT_CHANNEL;
  try {
    return { ...BASE_CHANNEL, ...(JSON.parse(stored) as Partial<ChannelSettings>) };
  } catch {
    return DEFAULT_CHANNEL;
  }
}

/** Builds the configuration: slaves by modBusIndex, each one's points in `registerAddr` then dataPointID order. */
export function buildChannelConfig(gatewayName: string, settings: ChannelSettings, slaves: readonly Slave[]) {
  const { chnname, tcphost, ttycom, ...rest } = settings;
  const device = [...slaves]
    .sort((a, b) => a.modBusIndex - b.modBusIndex)
    .flatMap((s) =>
      [...s.points]
        .sort((a, b) => a.registerAddr.localeCompare(b.registerAddr) || a.dataPointId.localeCompare(b.dataPointId))
        .map((p): ChannelTag => ({
          tagname: p.dataPointId,
          tagaddr: `${s.modBusIndex}!${p.registerAddr}`,
          tagtype: p.pointDataType,
          tagarrsz: p.binarySize ?? 0,
          tagattr: ATTR[p.dataTransType] ?? "R",
          taglogtime: 0,
          tagupdtime: s.pollInterval ?? settings.pollInterval,
          tagstatus: 0,
          tagsubno: s.modBusIndex,
          deviceID: s.deviceId,
          upperLimit: p.upperLimit,
          lowerLimit: p.lowerLimit,
        })),
    );
  const config: ChannelConfig = {
    channel: [
      {
        chnix: 0,
        chnno: 1,
        chnname: chnname ?? gatewayName,
        chndrv: settings.chntype === "tcp" ? "modbus-tcp" : "modbus-rtu",
        ...rest,
        tcphost: tcphost ?? "",
        ttycom: ttycom ?? "",
        ttycts: 0,
        ttyrts: 0,
        ttyorts: 0,
        ttymodm: 0,
        device,
      },
    ],
  };
  return config;
}

/** A device's own poll interval from its metaData (`{"pollInterval": ms}`, 100 ms to a day), else null. */
export function slavePollInterval(metaData: string | null): number | null {
  if (!metaData) return null;
  try {
    const v = (JSON.parse(metaData) as { pollInterval?: unknown } | null)?.pollInterval;
    return typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 86_400_000 ? v : null;
  } catch {
    return null;
  }
}
