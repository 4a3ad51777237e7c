// JSON of the LNS protocol with its 64-bit integers kept exact: `xtime`, `rctx`, `gpstime`, `diid` and `txtime` use
// all 64 bits (xtime carries a session id in its top byte), past what a JS number holds, so they are read and
// written as bigint through the JSON source-text access of JSON.parse and JSON.rawJSON.
import { ok, refuse, type Result } from "../../codec/result.js";

/** The members read as bigint wherever they appear. */
const WIDE = new Set(["xtime", "rctx", "gpstime", "diid", "txtime", "router"]);

/** Largest text record accepted from a station, bytes (a jreq/updf is well under 1 KiB). */
export const MAX_STATION_MESSAGE_BYTES = 16 * 1024;

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

/** A parsed message: a JSON object with a string `msgtype`. */
export type StationObject = Record<string, unknown> & { msgtype: string };

/** Parses one text record; refused when it is not a JSON object with a `msgtype`. */
export function parseStationJson(text: string): Result<StationObject> {
  const o = parseJsonObject(text);
  if (!o.ok) return o;
  if (typeof o.value.msgtype !== "string") return refuse("msgtype missing");
  return ok(o.value as StationObject);
}

/** A wide member written as a plain integer in the text: its key and digits. */
const WIDE_IN_TEXT = /"(xtime|rctx|gpstime|diid|txtime|router)"\s*:\s*(-?\d+)(?=\s*[,}])/g;

/**
 * Parses one text record that must be a JSON object (the discovery query has no `msgtype`). The plain parse is
 * the fast path; the wide members (which the protocol puts at the top level or in `upinfo`, once each) are then read
 * exactly from their digits in the text. A text where a wide key appears twice takes the reviver's path instead,
 * which reads every member from its own source text (about ten times slower).
 */
export function parseJsonObject(text: string): Result<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return refuse(`not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return refuse("not a JSON object");
  const found = new Map<string, bigint>();
  for (const m of text.matchAll(WIDE_IN_TEXT)) {
    if (found.has(m[1]!)) return parseWithSource(text);
    found.set(m[1]!, BigInt(m[2]!));
  }
  const o = value as Record<string, unknown>;
  const up = typeof o.upinfo === "object" && o.upinfo !== null ? (o.upinfo as Record<string, unknown>) : undefined;
  for (const [key, exact] of found)
    for (const target of up ? [o, up] : [o]) if (typeof target[key] === "number") target[key] = exact;
  return ok(o);
}

function parseWithSource(text: string): Result<Record<string, unknown>> {
  const value = JSON.parse(text, function (this: unknown, key: string, v: unknown, context?: { source?: string }) {
    if (WIDE.has(key) && typeof v === "number" && context?.source && /^-?\d+$/.test(context.source))
      return BigInt(context.source);
    return v;
  } as (this: unknown, key: string, v: unknown) => unknown) as Record<string, unknown>;
  return ok(value);
}

/** Writes a message, bigint members as exact JSON integers. */
export function stringifyStation(message: object): string {
  return JSON.stringify(message, (_key, v: unknown) => (typeof v === "bigint" ? JSON.rawJSON(v.toString()) : v));
}

/** A 64-bit integer member (bigint; a small one may arrive as a number when written without source). */
export function wide(o: Record<string, unknown>, key: string): bigint | undefined {
  const v = o[key];
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}

/**
 * An EUI as the protocol writes it: `01-23-45-67-89-AB-CD-EF`, 16 hex digits, the ID6 form `0:0:1:2` (with `::`)
 * or an integer; answers 16 upper-case hex digits.
 */
export function parseEui(v: unknown): Result<string> {
  if (typeof v === "number" || typeof v === "bigint") {
    const n = BigInt(v);
    if (n < 0n || n > 0xffff_ffff_ffff_ffffn) return refuse("EUI out of range");
    return ok(n.toString(16).padStart(16, "0").toUpperCase());
  }
  if (typeof v !== "string") return refuse("EUI missing");
  if (v.includes(":")) {
    const [head, tail, extra] = v.split("::");
    if (extra !== undefined) return refuse(`ID6 "${v}" has two "::"`);
    const h = head ? head.split(":") : [];
    const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
    const groups = tail === undefined ? h : [...h, ...Array<string>(4 - h.length - t.length).fill("0"), ...t];
    if (groups.length !== 4 || !groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)))
      return refuse(`ID6 "${v}" is not 4 groups`);
    return ok(
      groups
        .map((g) => g.padStart(4, "0"))
        .join("")
        .toUpperCase(),
    );
  }
  const hex = v.replace(/-/g, "");
  if (!/^[0-9a-fA-F]{16}$/.test(hex)) return refuse(`EUI "${v}" is not 16 hex digits`);
  return ok(hex.toUpperCase());
}

/** 16 hex digits as the protocol's dashed EUI form. */
export function formatEui(hex16: string): string {
  return hex16.toUpperCase().match(/../g)!.join("-");
}

/** Microseconds since the GPS epoch (1980-01-06) of a UTC time in ms; GPS is ahead of UTC by the leap seconds. */
export function gpsMicros(utcMs: number, leapSeconds = 18): bigint {
  return BigInt(Math.round((utcMs - Date.UTC(1980, 0, 6) + leapSeconds * 1000) * 1000));
}
