import { refuse, type Result } from "./result.js";

/** Thrown by {@link Reader} past the end of its bytes; {@link decodeWith} turns it into a refused Result. */
class ShortInput extends Error {}

/**
 * Reads big-endian integers and length-prefixed vectors (RFC 5246 §4) from a buffer, never past its end. Views share
 * the input's memory: callers copy what they keep.
 */
export class Reader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.offset;
  }

  u8(): number {
    return this.take(1)[0]!;
  }
  u16(): number {
    return this.take(2).readUInt16BE(0);
  }
  u24(): number {
    return this.take(3).readUIntBE(0, 3);
  }
  u48(): number {
    return this.take(6).readUIntBE(0, 6);
  }
  bytes(n: number): Buffer {
    return this.take(n);
  }
  /** A vector with a `width`-byte length prefix, refused outside [min, max]. */
  vector(width: 1 | 2 | 3, min: number, max: number): Buffer {
    const n = width === 1 ? this.u8() : width === 2 ? this.u16() : this.u24();
    if (n < min || n > max) throw new ShortInput(`vector length ${n} outside ${min}..${max}`);
    return this.take(n);
  }
  rest(): Buffer {
    return this.take(this.remaining);
  }

  private take(n: number): Buffer {
    if (n > this.remaining) throw new ShortInput(`needs ${n} bytes, ${this.remaining} left`);
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

/** Runs a decoder over `buf`, turning a short or out-of-range read into a refused Result named by `what`. */
export function decodeWith<T>(what: string, buf: Buffer, decode: (r: Reader) => Result<T>): Result<T> {
  try {
    return decode(new Reader(buf));
  } catch (e) {
    if (e instanceof ShortInput) return refuse(`${what}: ${e.message}`);
    throw e;
  }
}

/** Big-endian unsigned integer of `width` bytes. */
export function uint(value: number, width: number): Buffer {
  const out = Buffer.alloc(width);
  out.writeUIntBE(value, 0, width);
  return out;
}

/** A vector with a `width`-byte length prefix. */
export function vector(width: 1 | 2 | 3, body: Buffer): Buffer {
  return Buffer.concat([uint(body.length, width), body]);
}

/**
 * A copy of `b` in memory of its own. Small buffers from `Buffer.concat`, `Buffer.from` and the decoders are views of
 * a shared 8 KB pool slab or of a whole received datagram; one kept for a session's lifetime (a key, an identity)
 * would keep all of that alive.
 */
export function unpooled(b: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(b.length);
  out.set(b);
  return out;
}
