import { describe, expect, test } from "vitest";
import { FakeClock } from "./fake-clock.test-kit.js";
import { type ClientHello, ExtensionType } from "./messages.js";
import { resumable } from "./server-hello.js";
import { type CachedSession, SessionCache } from "./session-cache.js";

const entry = (n: number, extended = true): CachedSession => ({
  id: Buffer.alloc(32, n),
  master: Buffer.alloc(48, n),
  suiteId: 0xc0a8,
  extended,
  identity: Buffer.from(`dev${n % 2}`),
  keyIndex: 0,
});

const hello = (id: Buffer, ems: boolean, suites = [0xc0a8]): ClientHello => ({
  clientVersion: 0xfefd,
  random: Buffer.alloc(32),
  sessionId: id,
  cookie: Buffer.alloc(0),
  cipherSuites: suites,
  compressionMethods: Buffer.from([0]),
  extensions: ems ? [{ type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) }] : [],
});

describe("SessionCache", () => {
  test("keeps at most maxEntries, dropping the oldest first", () => {
    const cache = new SessionCache(new FakeClock(), { maxEntries: 3 });
    for (let n = 1; n <= 5; n++) cache.put(entry(n));
    expect(cache.size).toBe(3);
    expect(cache.get(entry(1).id)).toBeUndefined();
    expect(cache.get(entry(2).id)).toBeUndefined();
    expect(cache.get(entry(5).id)?.master).toEqual(entry(5).master);
  });

  test("forgets an entry once its lifetime has passed", () => {
    const clock = new FakeClock();
    const cache = new SessionCache(clock, { lifetimeMs: 1000 });
    cache.put(entry(1));
    clock.advance(999);
    expect(cache.get(entry(1).id)).toBeDefined();
    clock.advance(1);
    expect(cache.get(entry(1).id)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test("forgetIdentity drops every session of that identity only", () => {
    const cache = new SessionCache(new FakeClock());
    for (let n = 1; n <= 4; n++) cache.put(entry(n));
    cache.forgetIdentity(Buffer.from("dev1"));
    expect([1, 2, 3, 4].map((n) => cache.get(entry(n).id) !== undefined)).toEqual([false, true, false, true]);
  });
});

describe("resumable", () => {
  const serves = () => true;
  test("resumes only when the extended master secret is used both times or neither (RFC 7627 §5.3)", () => {
    const cache = new SessionCache(new FakeClock());
    cache.put(entry(1, true));
    cache.put(entry(2, false));
    expect(resumable(hello(entry(1).id, true), cache, serves)).toBeDefined();
    expect(resumable(hello(entry(1).id, false), cache, serves)).toBeUndefined();
    expect(resumable(hello(entry(2).id, true), cache, serves)).toBeUndefined();
    expect(resumable(hello(entry(2).id, false), cache, serves)).toBeDefined();
  });

  test("does not resume when the client no longer offers the suite, the server no longer serves it, or the id is empty", () => {
    const cache = new SessionCache(new FakeClock());
    cache.put(entry(1));
    expect(resumable(hello(entry(1).id, true, [0x00ae]), cache, serves)).toBeUndefined();
    expect(resumable(hello(entry(1).id, true), cache, () => false)).toBeUndefined();
    expect(resumable(hello(Buffer.alloc(0), true), cache, serves)).toBeUndefined();
    expect(resumable(hello(entry(1).id, true), undefined, serves)).toBeUndefined();
  });
});
