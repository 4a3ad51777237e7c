import { ok, refuse, type Result } from "./codec/result.js";
import { parseTagAddress } from "./codec/register-address.js";
import { layoutCount, pointLayout, type PointLayout } from "./codec/value-codec.js";
import type { ReadTag } from "./codec/read-plan.js";
import { choiceField, fields, integerField, isObject, limitField, textField } from "./config-fields.js";

/** `tagattr`: R is reported (polled), W is commanded (written), RW both. */
export type TagAccess = "R" | "W" | "RW";

/** Shortest and longest poll interval a tag may ask for, ms; 0 or unset means the channel's `pollInterval`. */
export const MIN_INTERVAL_MS = 10;
export const MAX_INTERVAL_MS = 86_400_000;

/** One data point of a slave, parsed from a channel `device` entry: where it sits and how it is coded. */
export interface ModbusTag extends ReadTag {
  /** `tagname`: the data point's dataPointID, the key of its value in uplinks and commands. */
  readonly name: string;
  readonly deviceId: string;
  readonly pointDataType: number;
  readonly layout: PointLayout;
  readonly access: TagAccess;
  /** The data point's limits, checked on writes; null when not set. */
  readonly upperLimit: number | null;
  readonly lowerLimit: number | null;
  /** `tagupdtime`, ms (the channel's pollInterval when 0 or unset). */
  readonly intervalMs: number;
}

/** One slave (unit id) of a channel: the device it is, its poll interval and its tags. */
export interface ModbusUnit {
  readonly unit: number;
  readonly deviceId: string;
  /** The shortest `tagupdtime` of its tags, ms. */
  readonly intervalMs: number;
  readonly tags: readonly ModbusTag[];
}

/** A `device` entry left out of the configuration, and why (reported back to whoever pushed it). */
export interface DroppedTag {
  readonly channel: number;
  readonly tagname: string;
  readonly deviceId: string;
  readonly reason: string;
}

/** Highest unit id a slave on a serial line answers (0 is broadcast, 248–255 reserved). */
const MAX_SERIAL_UNIT = 247;

/** Parses one `device` entry of a channel into a tag, or the reason it cannot be used. */
export function parseTag(entry: unknown, pollIntervalMs: number, serial: boolean): Result<ModbusTag> {
  if (!isObject(entry)) return refuse("a device entry must be an object");
  const ids = fields({ name: textField(entry, "tagname"), deviceId: textField(entry, "deviceID") });
  if (!ids.ok) return ids;
  if (typeof entry.tagaddr !== "string") return refuse("tagaddr must be a string <modBusIndex>!<registerAddr>");
  const address = parseTagAddress(entry.tagaddr);
  if (!address.ok) return address;
  const { unit, area } = address.value;
  if (serial && (unit < 1 || unit > MAX_SERIAL_UNIT))
    return refuse(`unit ${unit} cannot answer on a serial line: use 1 to ${MAX_SERIAL_UNIT}`);
  const f = fields({
    subno: integerField(entry, "tagsubno", 0, 255, unit),
    type: integerField(entry, "tagtype", 0, 255),
    size: integerField(entry, "tagarrsz", 0, 65535, 0),
    access: choiceField(entry, "tagattr", ["R", "W", "RW"], "R"),
    intervalMs: integerField(entry, "tagupdtime", 0, MAX_INTERVAL_MS, 0),
    upperLimit: limitField(entry, "upperLimit"),
    lowerLimit: limitField(entry, "lowerLimit"),
  });
  if (!f.ok) return f;
  const { subno, type, size, intervalMs, ...rest } = f.value;
  if (subno !== unit) return refuse(`tagsubno ${subno} is not the unit of tagaddr ${entry.tagaddr}`);
  if (intervalMs !== 0 && intervalMs < MIN_INTERVAL_MS)
    return refuse(`tagupdtime ${intervalMs} must be 0 (the channel's) or at least ${MIN_INTERVAL_MS} ms`);
  const layout = pointLayout({ pointDataType: type, binarySize: size === 0 ? null : size }, area);
  if (!layout.ok) return layout;
  return ok({
    ...ids.value,
    ...address.value,
    ...rest,
    count: layoutCount(layout.value),
    pointDataType: type,
    layout: layout.value,
    intervalMs: intervalMs || pollIntervalMs,
  });
}

/**
 * Groups channel `channel`'s tags into units. A unit belongs to the device of its first tag: tags of another device
 * on the same unit, of a device already seen on another unit or channel (`claimed`: deviceID to channel, shared
 * across the gateway's channels), and a device's second tag of the same name are dropped with the reason.
 */
export function groupUnits(
  tags: readonly ModbusTag[],
  channel: number,
  claimed: Map<string, number>,
  drop: (tag: ModbusTag, reason: string) => void,
): ModbusUnit[] {
  const units = new Map<number, { deviceId: string; tags: ModbusTag[] }>();
  const home = new Map<string, number>();
  for (const tag of tags) {
    const unit = units.get(tag.unit);
    const known = home.get(tag.deviceId);
    const elsewhere = claimed.get(tag.deviceId);
    let reason: string | undefined;
    if (unit && unit.deviceId !== tag.deviceId) reason = `unit ${tag.unit} belongs to device ${unit.deviceId}`;
    else if (known !== undefined && known !== tag.unit) reason = `device ${tag.deviceId} is unit ${known}`;
    else if (elsewhere !== undefined && elsewhere !== channel)
      reason = `device ${tag.deviceId} is already polled on channel ${elsewhere}`;
    else if (unit?.tags.some((t) => t.name === tag.name))
      reason = `tagname ${tag.name} is repeated for device ${tag.deviceId}`;
    if (reason !== undefined) {
      drop(tag, reason);
      continue;
    }
    home.set(tag.deviceId, tag.unit);
    claimed.set(tag.deviceId, channel);
    if (unit) unit.tags.push(tag);
    else units.set(tag.unit, { deviceId: tag.deviceId, tags: [tag] });
  }
  return [...units].map(([unit, u]) => ({
    unit,
    deviceId: u.deviceId,
    intervalMs: Math.min(...u.tags.map((t) => t.intervalMs)),
    tags: u.tags,
  }));
}
