import { FakeRegistryClient, type AuthOutcome, type DeviceCredentials, type ProtocolName } from "@iot/adapter-core";
import { generate, parse, type ParsedPacket } from "coap-packet";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCoapAdapter, type CoapAdapter } from "./coap-adapter.js";
import { SecurePeers } from "./secure-peers.js";

/** The fake registry answering PSK credentials of its devices with their token as the one candidate key. */
class PskRegistry extends FakeRegistryClient {
  override async authenticate(p: ProtocolName, c: DeviceCredentials, ip: string): Promise<AuthOutcome> {
    if (c.kind !== "psk") return super.authenticate(p, c, ip);
    const outcome = await super.authenticate(p, { kind: "token", clientId: "", username: c.identity, token: "t" }, ip);
    return outcome.ok ? { ok: true, session: { ...outcome.session, pskKeys: [Buffer.from("t")] } } : outcome;
  }
}

const peer = { address: "10.0.0.9", port: 40000 };
let registry: PskRegistry;
let adapter: CoapAdapter;
let messageId = 1;

beforeEach(() => {
  registry = new PskRegistry({ devices: [{ deviceIntId: 3, deviceId: "d3", username: "u3", token: "t" }] });
  adapter = createCoapAdapter({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    keepAliveSeconds: 60,
    maxMessageSize: 4096,
  });
});
afterEach(() => adapter.close());

/** A confirmable POST to /mqtt/<topic> on the secure listener, without credentials; answers the reply. */
function post(topic: string, payload: string): Promise<ParsedPacket> {
  const datagram = generate({
    confirmable: true,
    code: "0.02",
    messageId: messageId++,
    token: Buffer.from([messageId]),
    options: [
      { name: "Uri-Path", value: Buffer.from("mqtt") },
      { name: "Uri-Path", value: Buffer.from(topic) },
    ],
    payload: Buffer.from(payload),
  });
  return new Promise((resolve) => adapter.secure.handle(datagram, peer, (reply) => resolve(parse(reply))));
}

describe("the CoAP adapter's DTLS side", () => {
  it("answers the identity's token as candidate keys, and nothing for an identity the registry refuses", async () => {
    expect(await adapter.secure.lookupPsk(Buffer.from("u3"), peer)).toEqual([Buffer.from("t")]);
    expect(await adapter.secure.lookupPsk(Buffer.from("nobody"), peer)).toBeUndefined();
  });

  it("rejects the lookup while the registry is unavailable (internal_error), not as an unknown identity", async () => {
    registry.unavailable = true;
    await expect(adapter.secure.lookupPsk(Buffer.from("u3"), peer)).rejects.toThrow(/registry unavailable/);
    registry.unavailable = false;
    expect(await adapter.secure.lookupPsk(Buffer.from("u3"), peer)).toEqual([Buffer.from("t")]);
  });

  it("refuses with 4.01 a request from a peer without an established session", async () => {
    expect((await post("temp", "1")).code).toBe("4.01");
    expect(registry.uplinks).toEqual([]);
  });

  it("takes a request on an established session as the identity's device's, until the session ends", async () => {
    adapter.secure.established(peer, Buffer.from("u3"), () => expect.unreachable("not kicked"));
    await expect.poll(() => registry.events.map((e) => e.type)).toEqual(["opened"]);
    expect((await post("temp", "21")).code).toBe("2.04");
    expect(registry.uplinks.map((u) => [u.deviceIntId, u.topic])).toEqual([[3, "temp"]]);
    adapter.secure.closed(peer);
    expect((await post("temp", "22")).code).toBe("4.01");
  });

  it("ends the DTLS session when the device's session is kicked", async () => {
    const ended: string[] = [];
    adapter.secure.established(peer, Buffer.from("u3"), (reason) => ended.push(reason));
    await expect.poll(() => registry.events.length).toBe(1);
    registry.kick(3, "token changed");
    expect(ended).toEqual(["kicked: token changed"]);
  });

  it("ends the DTLS session when the registry refuses to open the device's session after the handshake", async () => {
    const ended: string[] = [];
    registry.addDevice({ deviceIntId: 3, deviceId: "d3", username: "u3", token: "t", blocked: true });
    adapter.secure.established(peer, Buffer.from("u3"), (reason) => ended.push(reason));
    await expect.poll(() => ended).toEqual(["refused: device is blocked"]);
  });

  it("answers a random key for a known identity the registry refuses, so its handshake ends with decrypt_error", async () => {
    registry.addDevice({ deviceIntId: 3, deviceId: "d3", username: "u3", token: "t", blocked: true });
    const keys = await adapter.secure.lookupPsk(Buffer.from("u3"), peer);
    expect(keys).toHaveLength(1);
    expect(keys![0]).not.toEqual(Buffer.from("t"));
    // The registry logged the refusal itself: the failed Finished is not reported again.
    adapter.secure.failed!(peer, "no candidate key verifies the client's Finished", 51);
    expect(registry.authFailures).toEqual([]);
  });

  it("reports a handshake of an admitted identity that failed on the key, once, and no other failure", async () => {
    await adapter.secure.lookupPsk(Buffer.from("u3"), peer);
    adapter.secure.failed!(peer, "no candidate key verifies the client's Finished", 51);
    adapter.secure.failed!(peer, "no candidate key verifies the client's Finished", 51);
    await adapter.secure.lookupPsk(Buffer.from("u3"), { ...peer, port: 40001 });
    adapter.secure.failed!({ ...peer, port: 40001 }, "handshake timed out");
    expect(registry.authFailures).toEqual([
      {
        credentials: { kind: "psk", identity: "u3" },
        ip: "10.0.0.9",
        reason: "wrong pre-shared key: the handshake's Finished does not verify",
      },
    ]);
  });

  it("refuses every client certificate when the adapter was given no CA", async () => {
    expect(await adapter.secure.checkCertificate!([Buffer.from("x")], peer)).toBeUndefined();
    expect(registry.authAttempts).toEqual([]);
  });
});

describe("SecurePeers with a DTLS Connection ID", () => {
  it("keeps the device of a session whose address moved, and forgets the old address", () => {
    const peers = new SecurePeers(adapter.leases, registry, pino({ level: "silent" }), { openOnHandshake: false });
    const device = { address: "10.0.0.9", port: 40000 };
    peers.established(device, Buffer.from("u3"), () => {});
    const before = { ...device };
    device.port = 40001;
    expect(peers.identityOf(device)).toBeUndefined();
    peers.moved(device, before);
    expect(peers.identityOf(device)).toBe("u3");
    expect(peers.identityOf(before)).toBeUndefined();
    expect(peers.size).toBe(1);
  });
});
