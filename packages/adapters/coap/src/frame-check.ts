/**
 * Why a datagram is not a well-formed CoAP message (RFC 7252 §3), or undefined when it is. coap-packet's parser
 * accepts some broken frames (an option running past the end is cut short, a payload marker without a payload,
 * tokens longer than 8 bytes) and throws on others; this check runs first so that every such datagram is refused
 * the same way, as one message format error, and the parser only ever sees frames it reads whole.
 */
export function frameProblem(d: Uint8Array): string | undefined {
  if (d.length < 4) return "shorter than the 4-byte header";
  if (d[0]! >> 6 !== 1) return `version ${d[0]! >> 6}, not 1`;
  const tokenLength = d[0]! & 0x0f;
  if (tokenLength > 8) return `token length ${tokenLength} is reserved`;
  if (d[1] === 0) return d.length === 4 ? undefined : "an empty message (code 0.00) with bytes after its header";
  let at = 4 + tokenLength;
  if (at > d.length) return "token runs past the end";
  while (at < d.length) {
    const byte = d[at++]!;
    if (byte === 0xff) return at === d.length ? "payload marker without a payload" : undefined;
    const delta = extended(byte >> 4, d, at);
    if (delta === undefined) return "bad option delta";
    at += delta.bytes;
    const length = extended(byte & 0x0f, d, at);
    if (length === undefined) return "bad option length";
    at += length.bytes + length.value;
    if (at > d.length) return "option value runs past the end";
  }
  return undefined;
}

/** An option delta or length nibble with its extended bytes (RFC 7252 §3.1); undefined for 15 or a cut-off byte. */
function extended(nibble: number, d: Uint8Array, at: number): { value: number; bytes: number } | undefined {
  if (nibble < 13) return { value: nibble, bytes: 0 };
  if (nibble === 13) return at < d.length ? { value: d[at]! + 13, bytes: 1 } : undefined;
  if (nibble === 14) return at + 1 < d.length ? { value: ((d[at]! << 8) | d[at + 1]!) + 269, bytes: 2 } : undefined;
  return undefined;
}
