/** The user id and password of HTTP Basic credentials (RFC 7617). */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/** Longest base64 credentials read, characters (3 KiB decoded): far past any username and token this service issues. */
const MAX_ENCODED = 4096;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The credentials of an `Authorization: Basic <base64(user:password)>` header (RFC 7617), or undefined when the
 * header is missing, of another scheme, or not such credentials: base64 that is not canonical (padding optional),
 * text that is not UTF-8, no colon, an empty user id, or more than 4096 base64 characters. The password is
 * everything after the first colon, colons included, and may be empty (the caller's credential check refuses it).
 * Device adapters (HTTP), the REST API's application keys and the NATS command bridge all read Basic this way.
 */
export function parseBasicAuth(header: string | null | undefined): BasicCredentials | undefined {
  const m = /^Basic[ \t]+([A-Za-z0-9+/]+)(={0,2})[ \t]*$/i.exec(header ?? "");
  const [, encoded = "", padding = ""] = m ?? [];
  if (!m || encoded.length + padding.length > MAX_ENCODED) return undefined;
  if (padding && (encoded.length + padding.length) % 4 !== 0) return undefined;
  const bytes = Buffer.from(encoded, "base64");
  // Node skips what it cannot decode: only the canonical encoding of the bytes (Node's own) is taken.
  if (bytes.toString("base64").replace(/=+$/, "") !== encoded) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  if (colon < 1) return undefined;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
