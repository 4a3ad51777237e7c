import { decodeUint, encodeUint } from "../uint.js";

/**
 * The value of a Block1 or Block2 option (RFC 7959 §2.2): block number NUM (at most 20 bits), the "more blocks
 * follow" flag M, and the size exponent SZX. A block holds 2^(SZX+4) bytes, 16 to 1024.
 */
export interface BlockOption {
  readonly num: number;
  readonly more: boolean;
  readonly szx: number;
}

/** Why an option value is not a block: longer than 3 bytes (RFC 7252 §5.4.1: 4.02), or SZX 7 (RFC 7959 §2.2: 4.00). */
export type BlockProblem = "malformed" | "reserved-szx";

/** Largest SZX over UDP: 1024-byte blocks (7 is reserved for BERT, RFC 8323). */
export const MAX_SZX = 6;

/** Bytes in a block of exponent `szx` (0..6): 16 to 1024. */
export function blockSize(szx: number): number {
  return 16 << szx;
}

/** Decodes a Block1/Block2 option value (an empty value is block 0, no more, 16 bytes). */
export function decodeBlock(value: Uint8Array): BlockOption | BlockProblem {
  if (value.length > 3) return "malformed";
  const v = decodeUint(value);
  const szx = v & 0x7;
  if (szx === 7) return "reserved-szx";
  return { num: Math.floor(v / 16), more: (v & 0x8) !== 0, szx };
}

/** Encodes a Block1/Block2 option value. */
export function encodeBlock(block: BlockOption): Buffer {
  return encodeUint(block.num * 16 + (block.more ? 8 : 0) + block.szx);
}

/**
 * The same position in blocks no larger than 2^(maxSzx+4): a server may answer with a smaller block size than the
 * client asked for, and the block number scales with it (RFC 7959 §2.4).
 */
export function fitBlock(block: BlockOption, maxSzx: number): BlockOption {
  if (block.szx <= maxSzx) return block;
  return { num: block.num * 2 ** (block.szx - maxSzx), more: block.more, szx: maxSzx };
}

/**
 * Block `num` of a body cut in blocks of 2^(szx+4) bytes, with M set when more follow; undefined when the block
 * starts beyond the body's end (block 0 of an empty body is an empty last block).
 */
export function sliceBlock(
  body: Uint8Array,
  num: number,
  szx: number,
): { payload: Buffer; block: BlockOption } | undefined {
  const size = blockSize(szx);
  const start = num * size;
  if (start >= body.length && !(num === 0 && body.length === 0)) return undefined;
  const end = Math.min(start + size, body.length);
  return { payload: Buffer.from(body.subarray(start, end)), block: { num, more: end < body.length, szx } };
}
