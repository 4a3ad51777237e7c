import { type ChildProcess, spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { AlertDescription } from "./messages.js";
import { type DtlsPeer, DtlsServer, type DtlsServerOptions } from "./udp-server.js";

/** A device token of hex digits: the service accepts its UTF-8 bytes and the bytes the hex spells. */
const TOKEN = "00112233445566778899aabbccddeeff";
const candidates = (token: string) => [Buffer.from(token, "utf8"), Buffer.from(token, "hex")];

let socket: Socket | undefined;
let server: DtlsServer;
let port: number;
const events: { kind: string; peer?: DtlsPeer; data?: Buffer; info?: unknown; alert?: number }[] = [];
const children: ChildProcess[] = [];
let waiters: (() => void)[] = [];

function until<T>(find: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const found = find();
      if (found === undefined) return false;
      resolve(found);
      return true;
    };
    if (!check()) waiters.push(() => void check());
  });
}
function record(e: (typeof events)[number]) {
  events.push(e);
  for (const w of waiters) w();
}

/** Starts the server on a fresh socket with `extra` options (closing the one before, if any). */
async function listen(extra: Partial<DtlsServerOptions> = {}) {
  await stop();
  const s = createSocket("udp4");
  socket = s;
  server = new DtlsServer(s, {
    lookupPsk: (identity) => Promise.resolve(identity.toString() === "dev1" ? candidates(TOKEN) : undefined),
    onData: (peer, data) => record({ kind: "data", peer, data }),
    onEstablished: (peer, info) => record({ kind: "established", peer, info }),
    onClose: (peer, reason, alert) => record({ kind: "close", peer, info: reason, alert }),
    ...extra,
  });
  s.bind(0, "127.0.0.1");
  await once(s, "listening");
  port = s.address().port;
}

async function stop() {
  const closing = socket;
  if (!closing) return;
  socket = undefined;
  server.close();
  closing.close();
  await once(closing, "close");
}

beforeEach(async () => {
  events.length = 0;
  waiters = [];
  await listen();
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
  await stop();
});

function sClient(cipher: string, identity: string, pskHex: string): { child: ChildProcess; out: () => string } {
  const child = spawn("openssl", [
    "s_client",
    "-dtls1_2",
    "-connect",
    `127.0.0.1:${port}`,
    "-psk_identity",
    identity,
    "-psk",
    pskHex,
    "-cipher",
    cipher,
  ]);
  children.push(child);
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

describe("DtlsServer with openssl s_client", () => {
  test.each([
    ["PSK-AES128-CCM8", "TLS_PSK_WITH_AES_128_CCM_8"],
    ["PSK-AES128-CBC-SHA256", "TLS_PSK_WITH_AES_128_CBC_SHA256"],
  ])("completes a %s handshake with the hex key and carries data both ways", async (cipher, suite) => {
    const { child, out } = sClient(cipher, "dev1", TOKEN);
    child.stdin!.write("hello from openssl\n");
    const established = await until(() => events.find((e) => e.kind === "established"));
    expect(established.info).toEqual({ identity: Buffer.from("dev1"), keyIndex: 1, suite });
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.toString()).toBe("hello from openssl\n");
    data.peer!.session.sendData(Buffer.from("hello from the server\n"));
    await until(() => (out().includes("hello from the server") ? true : undefined));
    expect(out()).toContain("Extended master secret: yes");
    child.stdin!.end();
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.info).toBe("closed by the client");
    expect(server.size).toBe(0);
  });

  test("fragments its flight to a small MTU and openssl reassembles it, identity hint included", async () => {
    await listen({ mtu: 120, identityHint: Buffer.alloc(100, 0x41) });
    const { child } = sClient("PSK-AES128-CCM8", "dev1", TOKEN);
    child.stdin!.write("after fragments\n");
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.toString()).toBe("after fragments\n");
  });

  test("a wrong key fails the handshake with decrypt_error and a nonzero exit", async () => {
    const { child } = sClient("PSK-AES128-CCM8", "dev1", "ffeeddccbbaa99887766554433221100");
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.alert).toBe(AlertDescription.decryptError);
    const [code] = (await once(child, "exit")) as [number];
    expect(code).not.toBe(0);
    expect(events.some((e) => e.kind === "established")).toBe(false);
  });

  test("an unknown identity fails the handshake with unknown_psk_identity", async () => {
    const { child, out } = sClient("PSK-AES128-CCM8", "nobody", TOKEN);
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.alert).toBe(AlertDescription.unknownPskIdentity);
    await once(child, "exit");
    expect(out()).toMatch(/unknown psk identity/i);
  });

  test("a PSK lookup that fails (the key store unreachable) ends the handshake with internal_error", async () => {
    await stop();
    await listen({ lookupPsk: () => Promise.reject(new Error("registry unavailable")) });
    const { child, out } = sClient("PSK-AES128-CCM8", "dev1", TOKEN);
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.alert).toBe(AlertDescription.internalError);
    await once(child, "exit");
    expect(out()).toMatch(/internal error/i);
    expect(out()).not.toMatch(/unknown psk identity/i);
  });
});

describe("DtlsServer with libcoap's coap-client-openssl and coap-client-gnutls", () => {
  test("completes a handshake with the token's text as key and its CoAP request arrives", async () => {
    const child = spawn("coap-client-openssl", [
      "-k",
      TOKEN,
      "-u",
      "dev1",
      "-m",
      "put",
      "-e",
      "temperature=21",
      "-B",
      "5",
      `coaps://127.0.0.1:${port}/t`,
    ]);
    children.push(child);
    const established = await until(() => events.find((e) => e.kind === "established"));
    expect(established.info).toMatchObject({ identity: Buffer.from("dev1"), keyIndex: 0 });
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.subarray(0, 1)[0]! >> 6).toBe(1); // CoAP version 1
    expect(data.data!.toString("latin1")).toContain("temperature=21");
  });

  test("coap-client-gnutls completes a handshake with the token's text as key and its request arrives", async () => {
    const child = spawn("coap-client-gnutls", [
      "-k",
      TOKEN,
      "-u",
      "dev1",
      "-m",
      "put",
      "-e",
      "from-gnutls",
      "-B",
      "5",
      `coaps://127.0.0.1:${port}/t`,
    ]);
    children.push(child);
    const established = await until(() => events.find((e) => e.kind === "established"));
    expect(established.info).toMatchObject({
      identity: Buffer.from("dev1"),
      keyIndex: 0,
      suite: "TLS_PSK_WITH_AES_128_CCM_8",
    });
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.toString("latin1")).toContain("from-gnutls");
  });
});
