import { ok, refuse, type Result } from "./codec/result.js";
import { MAX_READ_REGISTERS } from "./codec/read-plan.js";
import { BYTE_ORDERS, DEFAULT_BYTE_ORDER, type ByteOrder } from "./codec/value-codec.js";
import {
  groupUnits,
  MAX_INTERVAL_MS,
  MIN_INTERVAL_MS,
  parseTag,
  type DroppedTag,
  type ModbusTag,
  type ModbusUnit,
} from "./channel-tags.js";
import { choiceField, fields, integerField, isObject, textField, type JsonObject } from "./config-fields.js";

/** Where a channel's slaves are: a Modbus TCP server, or a serial line spoken Modbus RTU. */
export type LinkSettings =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | {
      readonly kind: "rtu";
      /** `ttycom`: the serial port's path, e.g. /dev/ttyUSB0. */
      readonly path: string;
      readonly baudRate: number;
      readonly dataBits: 7 | 8;
      readonly parity: "none" | "even" | "odd";
      readonly stopBits: 1 | 2;
    };

/** One channel of the gateway: its link, how requests are timed and coded, and its slaves. */
export interface ModbusChannel {
  /** Position in the pushed `channel` array, to name it in logs and reasons. */
  readonly index: number;
  readonly name: string;
  readonly link: LinkSettings;
  /** ms to wait for each answer. */
  readonly timeoutMs: number;
  /** How many times a request that got no answer is sent again. */
  readonly retries: number;
  readonly byteOrder: ByteOrder;
  /** Registers left unread between two merged points (bits: 16 times as many). */
  readonly maxGap: number;
  readonly units: readonly ModbusUnit[];
}

/** A gateway's applied channel configuration and the device entries it left out. */
export interface ChannelConfig {
  readonly channels: readonly ModbusChannel[];
  readonly dropped: readonly DroppedTag[];
}

/** Longest answer timeout a channel may set, ms. */
const MAX_TIMEOUT_MS = 60_000;
/** Most retries a channel may set. */
const MAX_RETRIES = 10;

function linkSettings(ch: JsonObject): Result<LinkSettings> {
  const type = choiceField(ch, "chntype", ["tcp", "rtu"], "tcp");
  if (!type.ok) return type;
  const driver = choiceField(ch, "chndrv", ["modbus-tcp", "modbus-rtu"], `modbus-${type.value}`);
  if (!driver.ok) return driver;
  if (driver.value !== `modbus-${type.value}`) return refuse(`chndrv ${driver.value} does not match chntype`);
  if (type.value === "tcp") {
    const host = textField(ch, "tcphost");
    if (!host.ok) return host;
    const port = integerField(ch, "tcpport", 1, 65535, 502);
    return port.ok ? ok({ kind: "tcp", host: host.value, port: port.value }) : port;
  }
  const serial = fields({
    path: textField(ch, "ttycom"),
    baudRate: integerField(ch, "ttybaud", 50, 4_000_000, 9600),
    dataBits: integerField(ch, "ttydata", 7, 8, 8),
    parity: choiceField(ch, "ttypari", ["none", "even", "odd"], "none"),
    stopBits: integerField(ch, "ttystop", 1, 2, 1),
  });
  if (!serial.ok) return serial;
  const { dataBits, stopBits } = serial.value;
  return ok({ kind: "rtu", ...serial.value, dataBits: dataBits === 7 ? 7 : 8, stopBits: stopBits === 2 ? 2 : 1 });
}

function parseChannel(ch: unknown, index: number, claimed: Map<string, number>, dropped: DroppedTag[]) {
  if (!isObject(ch)) return refuse<ModbusChannel>("must be an object");
  const link = linkSettings(ch);
  if (!link.ok) return link;
  const settings = fields({
    timeoutMs: integerField(ch, "timeout", 10, MAX_TIMEOUT_MS, 1000),
    retries: integerField(ch, "retries", 0, MAX_RETRIES, 1),
    pollIntervalMs: integerField(ch, "pollInterval", MIN_INTERVAL_MS, MAX_INTERVAL_MS, 1000),
    byteOrder: choiceField(ch, "byteOrder", BYTE_ORDERS, DEFAULT_BYTE_ORDER),
    maxGap: integerField(ch, "maxGap", 0, MAX_READ_REGISTERS, 8),
  });
  if (!settings.ok) return settings;
  const { pollIntervalMs, ...timing } = settings.value;
  if (!Array.isArray(ch.device)) return refuse<ModbusChannel>("device must be an array");
  const drop = (entry: unknown, reason: string) =>
    dropped.push({
      channel: index,
      tagname: isObject(entry) && typeof entry.tagname === "string" ? entry.tagname : "",
      deviceId: isObject(entry) && typeof entry.deviceID === "string" ? entry.deviceID : "",
      reason,
    });
  const tags: ModbusTag[] = [];
  for (const entry of ch.device as unknown[]) {
    const tag = parseTag(entry, pollIntervalMs, link.value.kind === "rtu");
    if (tag.ok) tags.push(tag.value);
    else drop(entry, tag.reason);
  }
  return ok<ModbusChannel>({
    index,
    name: typeof ch.chnname === "string" ? ch.chnname : "",
    link: link.value,
    ...timing,
    units: groupUnits(tags, index, claimed, (tag, reason) =>
      drop({ tagname: tag.name, deviceID: tag.deviceId }, reason),
    ),
  });
}

/**
 * Parses the configuration the registry pushes on `config/modbus` (JSON `{"channel": [...]}`, see
 * docs/devices/modbus.md). A bad channel (unknown chntype, no host or port, a setting out of range) refuses the whole
 * configuration with the reason; a bad `device` entry is only left out, listed in `dropped` with its reason, so one
 * mistyped data point never stops a gateway's other points. Unset settings take their documented defaults.
 */
export function parseChannelConfig(payload: Uint8Array): Result<ChannelConfig> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    return refuse("the configuration is not UTF-8 JSON");
  }
  if (!isObject(json) || !Array.isArray(json.channel))
    return refuse('the configuration must be an object with a "channel" array');
  const channels: ModbusChannel[] = [];
  const dropped: DroppedTag[] = [];
  const claimed = new Map<string, number>();
  for (const [index, ch] of (json.channel as unknown[]).entries()) {
    const channel = parseChannel(ch, index, claimed, dropped);
    if (!channel.ok) return refuse(`channel ${index}: ${channel.reason}`);
    channels.push(channel.value);
  }
  return ok({ channels, dropped });
}
