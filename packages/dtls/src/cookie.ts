import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ClientHello } from "./messages.js";

/** Cookie length: a truncated HMAC-SHA256, enough against guessing within a secret's lifetime. */
const COOKIE_BYTES = 16;

/**
 * Stateless cookies for HelloVerifyRequest (RFC 6347 §4.2.1): an HMAC of the client's address and its ClientHello's
 * parameters under a secret that rotates; a cookie made under the previous secret is still accepted, so one made
 * just before a rotation works. The server keeps nothing per client until a ClientHello returns a good cookie.
 */
export class CookieJar {
  private current = randomBytes(32);
  private previous = randomBytes(32);
  private rotatedAt: number;

  constructor(
    private readonly now: () => number,
    private readonly rotateMs = 60_000,
  ) {
    this.rotatedAt = now();
  }

  /** The cookie for this client and hello. */
  make(address: string, hello: ClientHello): Buffer {
    this.rotate();
    return this.mac(this.current, address, hello);
  }

  /** Whether the hello carries the cookie this server would give this client now or before the last rotation. */
  check(address: string, hello: ClientHello): boolean {
    this.rotate();
    if (hello.cookie.length !== COOKIE_BYTES) return false;
    return [this.current, this.previous].some((secret) =>
      timingSafeEqual(this.mac(secret, address, hello), hello.cookie),
    );
  }

  private rotate(): void {
    if (this.now() - this.rotatedAt < this.rotateMs) return;
    this.previous = this.current;
    this.current = randomBytes(32);
    this.rotatedAt = this.now();
  }

  private mac(secret: Buffer, address: string, h: ClientHello): Buffer {
    const m = createHmac("sha256", secret);
    m.update(address).update("\0");
    m.update(Buffer.from([h.clientVersion >> 8, h.clientVersion & 0xff]));
    m.update(h.random).update(h.sessionId);
    for (const s of h.cipherSuites) m.update(Buffer.from([s >> 8, s & 0xff]));
    m.update(h.compressionMethods);
    return m.digest().subarray(0, COOKIE_BYTES);
  }
}
