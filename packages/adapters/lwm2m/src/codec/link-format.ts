import { ok, refuse, type Result } from "./result.js";

/**
 * CoRE Link Format (RFC 6690 §2): the payload of a Register or Update (the client's objects) and of a Discover answer
 * (an object's resources and their attributes). Pure text in, links out; the size is bounded before anything else.
 */

/** One link parameter: `;ver=1.1`, `;rt="oma.lwm2m"` (quoted keeps how it was written), or `;obs` without a value. */
export interface LinkParam {
  readonly name: string;
  readonly value?: string;
  /** Whether the value is (to be) written as a quoted-string; values that are no ptoken are quoted anyway. */
  readonly quoted?: boolean;
}

/** One link-value: `<uri>` and its parameters in order. */
export interface Link {
  readonly uri: string;
  readonly params: readonly LinkParam[];
}

/** Limits of {@link parseLinkFormat}. */
export interface LinkFormatLimits {
  /** Largest payload, bytes of UTF-8 (default {@link MAX_LINK_FORMAT_BYTES}). */
  readonly maxBytes?: number;
  /** Most links in one payload (default {@link MAX_LINKS}). */
  readonly maxLinks?: number;
}

/** Default largest link-format payload: 64 KiB, far above a Register of a few hundred object instances. */
export const MAX_LINK_FORMAT_BYTES = 65_536;

/** Default most links in one payload: a Discover of a large object lists one link per resource. */
export const MAX_LINKS = 4096;

const PARMNAME = /[A-Za-z0-9!#$&+\-.^_`|~]/;
const PTOKEN = /[!#$%&'()*+\-./0-9:<=>?@A-Z[\]^_`a-z{|}~]/;
const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);
// eslint-disable-next-line no-control-regex
const BAD_URI = /[\s<>"\u0000-\u001f\u007f]/;

/**
 * Parses a link-format payload. Empty (or blank) is no links. Whitespace is tolerated around `,` and `;` (the
 * specifications print examples on several lines) but nowhere else; anything else outside the RFC 6690 grammar is
 * refused: a link not in `<…>`, an empty URI or one with spaces or quotes, an empty or invalid parameter name, an
 * empty unquoted value, an unterminated quoted-string, a trailing `,`.
 */
export function parseLinkFormat(payload: string | Uint8Array, limits: LinkFormatLimits = {}): Result<Link[]> {
  const maxBytes = limits.maxBytes ?? MAX_LINK_FORMAT_BYTES;
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  if (size > maxBytes) return refuse(`link-format payload of ${size} bytes is above the limit of ${maxBytes}`);
  let text: string;
  if (typeof payload === "string") text = payload;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(payload);
    } catch {
      return refuse("link-format payload is not valid UTF-8");
    }
  }
  const maxLinks = limits.maxLinks ?? MAX_LINKS;
  const links: Link[] = [];
  let pos = skipWhitespace(text, 0);
  if (pos === text.length) return ok(links);
  for (;;) {
    if (links.length === maxLinks) return refuse(`link-format payload has more than ${maxLinks} links`);
    const link = parseLink(text, pos, links.length + 1);
    if (!link.ok) return link;
    links.push(link.value.link);
    pos = skipWhitespace(text, link.value.end);
    if (pos === text.length) return ok(links);
    if (text[pos] !== ",") return refuse(`link ${links.length} is followed by "${text[pos]}" at ${pos}, not ","`);
    pos = skipWhitespace(text, pos + 1);
    if (pos === text.length) return refuse('link-format payload ends with a trailing ","');
  }
}

function parseLink(text: string, start: number, n: number): Result<{ link: Link; end: number }> {
  if (text[start] !== "<") return refuse(`link ${n} at ${start} does not start with "<"`);
  const close = text.indexOf(">", start + 1);
  if (close < 0) return refuse(`link ${n} has no closing ">"`);
  const uri = text.slice(start + 1, close);
  if (uri === "") return refuse(`link ${n} has an empty URI`);
  if (BAD_URI.test(uri)) return refuse(`link ${n} URI "${uri}" has a space, quote, "<" or control character`);
  const params: LinkParam[] = [];
  let pos = close + 1;
  for (;;) {
    const next = skipWhitespace(text, pos);
    if (text[next] !== ";") return ok({ link: { uri, params }, end: pos });
    pos = skipWhitespace(text, next + 1);
    let nameEnd = pos;
    while (nameEnd < text.length && PARMNAME.test(text[nameEnd]!)) nameEnd++;
    if (nameEnd === pos) return refuse(`link ${n} <${uri}> has a parameter without a valid name at ${pos}`);
    const name = text.slice(pos, nameEnd);
    pos = nameEnd;
    if (text[pos] !== "=") {
      params.push({ name });
      continue;
    }
    pos++;
    if (text[pos] === '"') {
      const quoted = readQuoted(text, pos);
      if (quoted === undefined) return refuse(`link ${n} <${uri}> parameter ${name} has an unterminated quoted value`);
      params.push({ name, value: quoted.value, quoted: true });
      pos = quoted.end;
      continue;
    }
    let valueEnd = pos;
    while (valueEnd < text.length && PTOKEN.test(text[valueEnd]!)) valueEnd++;
    if (valueEnd === pos) return refuse(`link ${n} <${uri}> parameter ${name} has "=" but no value`);
    params.push({ name, value: text.slice(pos, valueEnd) });
    pos = valueEnd;
  }
}

/** Reads a quoted-string starting at the `"` at `start` (RFC 7230 quoted-pair escapes); undefined if unterminated. */
function readQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = "";
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return { value, end: i + 1 };
    if (c === "\\") {
      i++;
      if (i === text.length) return undefined;
      value += text[i];
    } else value += c;
  }
  return undefined;
}

function skipWhitespace(text: string, pos: number): number {
  while (pos < text.length && WHITESPACE.has(text[pos]!)) pos++;
  return pos;
}

/**
 * Writes links as RFC 6690 text without whitespace: values flagged `quoted`, and values that are no ptoken (empty,
 * or with spaces, commas, semicolons, quotes), become quoted-strings. Refuses a URI or parameter name that would not
 * parse back.
 */
export function formatLinkFormat(links: readonly Link[]): Result<string> {
  const out: string[] = [];
  for (const link of links) {
    if (link.uri === "" || BAD_URI.test(link.uri)) return refuse(`URI "${link.uri}" cannot be written in a link`);
    let text = `<${link.uri}>`;
    for (const param of link.params) {
      if (param.name === "" || ![...param.name].every((c) => PARMNAME.test(c)))
        return refuse(`parameter name "${param.name}" of <${link.uri}> is not a valid parmname`);
      text += `;${param.name}`;
      if (param.value === undefined) continue;
      const token = param.value !== "" && [...param.value].every((c) => PTOKEN.test(c));
      text += param.quoted || !token ? `="${param.value.replace(/["\\]/g, "\\$&")}"` : `=${param.value}`;
    }
    out.push(text);
  }
  return ok(out.join(","));
}

/** The value of a link's first parameter of this name (names compare case-insensitively, RFC 8288 §3). */
export function linkParam(link: Link, name: string): string | undefined {
  const lower = name.toLowerCase();
  return link.params.find((p) => p.name.toLowerCase() === lower)?.value;
}

/** Whether a link has a parameter of this name, with or without a value. */
export function hasLinkParam(link: Link, name: string): boolean {
  const lower = name.toLowerCase();
  return link.params.some((p) => p.name.toLowerCase() === lower);
}

/** An object the client has, with the instances it lists (empty when it lists only `</3>`) and its version. */
export interface RegisteredObject {
  readonly objectId: number;
  /** Object version from `;ver=` (Core V1_1 §6.2.1.1), e.g. "1.1"; undefined means the object's 1.0. */
  readonly version?: string;
  /** Instance ids, ascending and without repeats. */
  readonly instances: readonly number[];
}

/** What a Register or Update payload says about the client (OMA-TS-LightweightM2M-V1_0 §5.3.1, Core V1_1 §6.2.1). */
export interface ObjectLinks {
  /** The alternate path the objects live under (`/lwm2m`), from the `rt="oma.lwm2m"` link; `/` when none. */
  readonly rootPath: string;
  /** Content formats the client announces in the `ct` of that link (`ct=11543`, `ct="60 110"`); empty if none. */
  readonly contentFormats: readonly number[];
  /** Objects ascending by id. */
  readonly objects: readonly RegisteredObject[];
  /** URIs of links that name no object or instance under the root (`</3/0/1>`, `</foo>`): kept for the log only. */
  readonly ignored: readonly string[];
}

const VERSION = /^\d{1,3}\.\d{1,3}$/;
const OBJECT_LINK = /^\/(0|[1-9]\d{0,4})(?:\/(0|[1-9]\d{0,4}))?$/;

/**
 * Reads the objects out of a Register/Update payload such as `</>;rt="oma.lwm2m";ct=11543,</1/0>,</3/0>,
 * </3303/0>;ver=1.1`. The `rt="oma.lwm2m"` link (at most one) gives the alternate root path and content formats;
 * every other link is `<root/O>` or `<root/O/I>` (ids 0..65535) or is listed in `ignored`. `ver` is read on object
 * links and, as some clients write it, on instance links; a malformed version or content format is refused.
 */
export function parseRegisteredObjects(payload: string | Uint8Array, limits?: LinkFormatLimits): Result<ObjectLinks> {
  const parsed = parseLinkFormat(payload, limits);
  if (!parsed.ok) return parsed;
  const roots = parsed.value.filter((l) => (linkParam(l, "rt") ?? "").split(" ").includes("oma.lwm2m"));
  if (roots.length > 1) return refuse(`${roots.length} links carry rt="oma.lwm2m": at most one may`);
  const root = roots[0];
  const rootPath = root?.uri ?? "/";
  if (!rootPath.startsWith("/") || (rootPath !== "/" && rootPath.endsWith("/")))
    return refuse(`alternate path "${rootPath}" must be absolute and not end with "/"`);
  const contentFormats: number[] = [];
  const ct = root === undefined ? undefined : linkParam(root, "ct");
  if (ct !== undefined) {
    for (const text of ct.split(" ")) {
      if (!/^(0|[1-9]\d{0,4})$/.test(text) || Number(text) > 65535)
        return refuse(`content format "${text}" in ct="${ct}" is not a number 0..65535`);
      contentFormats.push(Number(text));
    }
  }
  const prefix = rootPath === "/" ? "" : rootPath;
  const objects = new Map<number, { version?: string; instances: Set<number> }>();
  const ignored: string[] = [];
  for (const link of parsed.value) {
    if (link === root) continue;
    const match = link.uri.startsWith(prefix) ? OBJECT_LINK.exec(link.uri.slice(prefix.length)) : null;
    const objectId = Number(match?.[1]);
    const instanceId = match?.[2] === undefined ? undefined : Number(match[2]);
    if (match === null || objectId > 65535 || (instanceId ?? 0) > 65535) {
      ignored.push(link.uri);
      continue;
    }
    const version = linkParam(link, "ver");
    if (version !== undefined && !VERSION.test(version))
      return refuse(`object ${objectId} has version "${version}": expected <major>.<minor>`);
    const entry = objects.get(objectId) ?? { instances: new Set<number>() };
    if (entry.version === undefined && version !== undefined) entry.version = version;
    if (instanceId !== undefined) entry.instances.add(instanceId);
    objects.set(objectId, entry);
  }
  const list = [...objects.entries()]
    .sort(([a], [b]) => a - b)
    .map(([objectId, e]) => ({
      objectId,
      ...(e.version === undefined ? {} : { version: e.version }),
      instances: [...e.instances].sort((a, b) => a - b),
    }));
  return ok({ rootPath, contentFormats, objects: list, ignored });
}

/**
 * Writes a Register payload for these objects (as a client does; the simulator and tests use it): the
 * `rt="oma.lwm2m"` link when there is an alternate path or content formats, then `</O>;ver=V` for a versioned or
 * instance-less object and `</O/I>` per instance.
 */
export function formatRegisteredObjects(links: Omit<ObjectLinks, "ignored">): Result<string> {
  const prefix = links.rootPath === "/" ? "" : links.rootPath;
  const out: Link[] = [];
  if (prefix !== "" || links.contentFormats.length > 0) {
    const params: LinkParam[] = [{ name: "rt", value: "oma.lwm2m", quoted: true }];
    if (links.contentFormats.length > 0) params.push({ name: "ct", value: links.contentFormats.join(" ") });
    out.push({ uri: links.rootPath, params });
  }
  for (const object of links.objects) {
    const ver: LinkParam[] = object.version === undefined ? [] : [{ name: "ver", value: object.version }];
    if (object.version !== undefined || object.instances.length === 0)
      out.push({ uri: `${prefix}/${object.objectId}`, params: ver });
    for (const instance of object.instances) out.push({ uri: `${prefix}/${object.objectId}/${instance}`, params: [] });
  }
  return formatLinkFormat(out);
}
