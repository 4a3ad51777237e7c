import { describe, expect, test } from "vitest";
import { CookieJar } from "./cookie.js";
import type { ClientHello } from "./messages.js";

const hello: ClientHello = {
  clientVersion: 0xfefd,
  random: Buffer.alloc(32, 1),
  sessionId: Buffer.alloc(0),
  cookie: Buffer.alloc(0),
  cipherSuites: [0xc0a8],
  compressionMethods: Buffer.from([0]),
  extensions: [],
};

describe("CookieJar", () => {
  test("accepts its cookie from the same address and hello, refuses it from another address or random", () => {
    const jar = new CookieJar(() => 0);
    const cookie = jar.make("10.0.0.1:5684", hello);
    expect(jar.check("10.0.0.1:5684", { ...hello, cookie })).toBe(true);
    expect(jar.check("10.0.0.2:5684", { ...hello, cookie })).toBe(false);
    expect(jar.check("10.0.0.1:5684", { ...hello, cookie, random: Buffer.alloc(32, 2) })).toBe(false);
    expect(jar.check("10.0.0.1:5684", { ...hello, cookie: Buffer.alloc(16) })).toBe(false);
    expect(jar.check("10.0.0.1:5684", hello)).toBe(false);
  });

  test("a cookie survives one rotation of the secret and not two", () => {
    let now = 0;
    const jar = new CookieJar(() => now, 1000);
    const cookie = jar.make("a", hello);
    now = 1000;
    expect(jar.check("a", { ...hello, cookie })).toBe(true);
    now = 2000;
    expect(jar.check("a", { ...hello, cookie })).toBe(false);
  });
});
