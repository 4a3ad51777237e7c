import { describe, expect, test } from "vitest";
import { CookieJar } from "./cookie.js";
import { helloGate } from "./gate.js";
import { decodeFragments } from "./handshake.js";
import { AlertDescription, decodeClientHello } from "./messages.js";
import { mutate, random } from "./mutate.test-kit.js";
import { PskTestClient } from "./psk-client.test-kit.js";
import { decodeRecords } from "./record.js";
import { ServerSession } from "./session.js";

describe("bad input", () => {
  test("5,000 mutated ClientHello datagrams are each answered, accepted or refused without a throw", () => {
    const next = random(45);
    const jar = new CookieJar(() => 0);
    const base = new PskTestClient([0xc0a8, 0x00ae]).hello(Buffer.alloc(16, 1));
    const kinds = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const d = mutate(base, next);
      expect(() => {
        kinds.add(helloGate(d, "a:1", jar).kind);
        const records = decodeRecords(d);
        const f = records.ok && records.value[0] ? decodeFragments(records.value[0].body) : undefined;
        if (f?.ok && f.value[0]) decodeClientHello(f.value[0].body);
      }).not.toThrow();
    }
    expect(kinds).toEqual(new Set(["verify", "drop"]));
  });

  test("a session fed 2,000 mutated copies of the client's flight ends established, closed or waiting, never with internal_error", async () => {
    const next = random(4279);
    const psk = Buffer.alloc(16, 9);
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const client = new PskTestClient();
      const jar = new CookieJar(() => 0);
      const v = helloGate(client.hello(), "a:1", jar);
      const accepted = helloGate(
        client.hello(client.cookieOf(v.kind === "verify" ? v.reply : Buffer.alloc(0))),
        "a:1",
        jar,
      );
      if (accepted.kind !== "accept") throw new Error(accepted.kind);
      const sent: Buffer[] = [];
      const closes: { reason: string; alert?: number }[] = [];
      const session = new ServerSession(accepted, {
        lookupPsk: () => Promise.resolve([psk]),
        clock: { now: () => 0, setTimer: () => () => {} },
        send: (d) => sent.push(d),
        onData: () => {},
        onClose: (reason, alert) => closes.push({ reason, alert }),
      });
      client.serverFlight(sent);
      const flight = client.keyExchange("dev1", psk);
      for (let i = 0; i < 100; i++) {
        session.receive(mutate(flight, next));
        if (i % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setImmediate(r));
      // A bug (a throw that is not a DtlsError) would end the session with internal_error.
      expect(closes.filter((c) => c.alert === AlertDescription.internalError)).toEqual([]);
      outcomes.add(session.established ? "established" : session.closed ? `closed: ${closes[0]?.reason}` : "waiting");
    }
    expect(outcomes.size).toBeGreaterThan(1);
  });
});
