import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { FakeRegistryClient, type AuthOutcome, type DeviceCredentials, type ProtocolName } from "@iot/adapter-core";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCoapAdapter, type CoapAdapter } from "../coap-adapter.js";
import { listenDtls, type DtlsListener } from "./dtls.js";

const TOKEN = "00112233445566778899aabbccddeeff";

/** The fake registry, answering PSK credentials as the registry does: the device's token as candidate keys. */
class PskRegistry extends FakeRegistryClient {
  override async authenticate(p: ProtocolName, c: DeviceCredentials, ip: string): Promise<AuthOutcome> {
    if (c.kind !== "psk") return super.authenticate(p, c, ip);
    const outcome = await super.authenticate(
      p,
      { kind: "token", clientId: "", username: c.identity, token: TOKEN },
      ip,
    );
    if (!outcome.ok) return outcome;
    return { ok: true, session: { ...outcome.session, pskKeys: [Buffer.from(TOKEN), Buffer.from(TOKEN, "hex")] } };
  }
}

let registry: PskRegistry;
let adapter: CoapAdapter;
let listener: DtlsListener;
const children: ChildProcess[] = [];

beforeEach(async () => {
  registry = new PskRegistry({ devices: [{ deviceIntId: 7, deviceId: "meter-7", username: "u7", token: TOKEN }] });
  adapter = createCoapAdapter({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    keepAliveSeconds: 60,
    maxMessageSize: 65536,
  });
  listener = await listenDtls(adapter.secure, {
    port: 0,
    host: "127.0.0.1",
    onError: (err) => expect.unreachable(err.message),
  });
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
  adapter.close();
  await listener.close();
});

/** openssl s_client's PSK handshake; it stays connected while its stdin is open. */
function sClient(identity: string, keyHex: string): { child: ChildProcess; out: () => string } {
  const child = spawn("openssl", [
    ...["s_client", "-dtls1_2", "-connect", `127.0.0.1:${listener.port}`],
    ...["-psk_identity", identity, "-psk", keyHex, "-cipher", "PSK-AES128-CCM8"],
  ]);
  children.push(child);
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  return { child, out: () => out };
}

describe("listenDtls", () => {
  it("feeds the adapter the decrypted requests of a session as its identity's device's, and encrypts the answers", async () => {
    // Spawned, not spawnSync: the server runs in this process's event loop.
    const client = spawn("coap-client-openssl", [
      ...["-u", "u7", "-k", TOKEN, "-m", "put", "-e", "21.5"],
      `coaps://127.0.0.1:${listener.port}/mqtt/temp`,
    ]);
    children.push(client);
    let stderr = "";
    client.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const [code] = (await once(client, "exit")) as [number];
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(registry.uplinks.map((u) => [u.deviceIntId, u.topic, Buffer.from(u.payload).toString()])).toEqual([
      [7, "temp", "21.5"],
    ]);
  });

  it("opens the device's session at the handshake, and ends the DTLS session when the device is kicked", async () => {
    const s = sClient("u7", TOKEN);
    await expect.poll(() => registry.events.filter((e) => e.type === "opened").length, { timeout: 10_000 }).toBe(1);
    expect(listener.sessions).toBe(1);
    registry.kick(7, "device blocked");
    await expect.poll(() => s.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(listener.sessions).toBe(0);
    expect(registry.events.at(-1)).toMatchObject({ type: "closed", reason: "kicked: device blocked" });
  });

  it("fails the handshake with unknown_psk_identity when the registry does not admit the identity", async () => {
    const s = sClient("nobody", TOKEN);
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/unknown psk identity/i);
    expect(registry.events).toEqual([]);
  });

  it("closes a session that sent nothing for idleMs with close_notify", async () => {
    await listener.close();
    listener = await listenDtls(adapter.secure, {
      port: 0,
      host: "127.0.0.1",
      onError: (err) => expect.unreachable(err.message),
      idleMs: 300,
    });
    const s = sClient("u7", TOKEN);
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/Cipher is PSK-AES128-CCM8/);
    await expect.poll(() => s.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(listener.sessions).toBe(0);
  });

  it("fails on a taken port naming the listener's setting", async () => {
    const taken = listenDtls(adapter.secure, {
      port: listener.port,
      host: "127.0.0.1",
      onError: (err) => expect.unreachable(err.message),
      setting: "IOT_LWM2M_DTLS_PORT",
      name: "lwm2m-dtls",
    });
    await expect(taken).rejects.toThrow(/IOT_LWM2M_DTLS_PORT/);
  });
});
