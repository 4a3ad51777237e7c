import { describe, expect, test } from "vitest";
import {
  type ClientHello,
  decodeAlert,
  decodeClientHello,
  decodeFinished,
  decodeHelloVerifyRequest,
  decodePskIdentity,
  decodeServerHello,
  encodeAlert,
  encodeClientHello,
  encodeHelloVerifyRequest,
  encodePskIdentity,
  encodeServerHello,
  ExtensionType,
} from "./messages.js";
import { DTLS10, DTLS12 } from "./record.js";

const hello: ClientHello = {
  clientVersion: DTLS12,
  random: Buffer.alloc(32, 7),
  sessionId: Buffer.alloc(0),
  cookie: Buffer.alloc(16, 1),
  cipherSuites: [0xc0a8, 0x00ae, 0x00ff],
  compressionMethods: Buffer.from([0]),
  extensions: [
    { type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) },
    { type: ExtensionType.supportedGroups, data: Buffer.from("0002001d", "hex") },
  ],
};

describe("hello messages", () => {
  test("a ClientHello with cookie, suites and extensions decodes to what was encoded", () => {
    expect(decodeClientHello(encodeClientHello(hello))).toEqual({ ok: true, value: hello });
    const bare = { ...hello, extensions: [] };
    expect(decodeClientHello(encodeClientHello(bare))).toEqual({ ok: true, value: bare });
  });

  test("refuses a ClientHello cut anywhere, with an odd suite list or trailing bytes", () => {
    const wire = encodeClientHello(hello);
    const withoutExtensions = encodeClientHello({ ...hello, extensions: [] }).length;
    for (let n = 0; n < wire.length; n++) {
      expect(decodeClientHello(wire.subarray(0, n)).ok).toBe(n === withoutExtensions);
    }
    expect(decodeClientHello(Buffer.concat([wire, Buffer.from([0])])).ok).toBe(false);
    const odd = Buffer.from(encodeClientHello({ ...hello, extensions: [] }));
    odd.writeUInt16BE(5, 2 + 32 + 1 + 1 + 16);
    expect(decodeClientHello(odd).ok).toBe(false);
  });

  test("HelloVerifyRequest and ServerHello round-trip", () => {
    expect(decodeHelloVerifyRequest(encodeHelloVerifyRequest(DTLS10, Buffer.alloc(32, 9)))).toEqual({
      ok: true,
      value: { serverVersion: DTLS10, cookie: Buffer.alloc(32, 9) },
    });
    const sh = {
      serverVersion: DTLS12,
      random: Buffer.alloc(32, 3),
      sessionId: Buffer.alloc(0),
      cipherSuite: 0xc0a8,
      extensions: [{ type: ExtensionType.renegotiationInfo, data: Buffer.from([0]) }],
    };
    expect(decodeServerHello(encodeServerHello(sh))).toEqual({ ok: true, value: sh });
  });

  test("PSK identity, Finished and Alert decode their fixed shapes and refuse others", () => {
    expect(decodePskIdentity(encodePskIdentity(Buffer.from("dev1")))).toEqual({ ok: true, value: Buffer.from("dev1") });
    expect(decodePskIdentity(Buffer.from([0, 5, 1])).ok).toBe(false);
    expect(decodeFinished(Buffer.alloc(12)).ok).toBe(true);
    expect(decodeFinished(Buffer.alloc(11)).ok).toBe(false);
    expect(decodeAlert(encodeAlert({ level: 2, description: 115 }))).toEqual({
      ok: true,
      value: { level: 2, description: 115 },
    });
    expect(decodeAlert(Buffer.alloc(3)).ok).toBe(false);
  });
});
