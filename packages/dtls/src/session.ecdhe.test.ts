import { createPrivateKey, createVerify, generateKeyPairSync, X509Certificate } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { type CheckClientCertificate, loadServerCertificate } from "./certificate-exchange.js";
import { CookieJar } from "./cookie.js";
import { decodeEcdheServerKeyExchange, encodeEcdhParams, encodeU16List, RSA_SHA256 } from "./ecdhe-messages.js";
import { AlertDescription, decodeServerHello, ExtensionType } from "./messages.js";
import { FakeClock } from "./fake-clock.test-kit.js";
import { helloGate } from "./gate.js";
import { HandshakeType } from "./handshake.js";
import { mutate, random } from "./mutate.test-kit.js";
import { createTestCa } from "./pki.test-kit.js";
import { PskTestClient } from "./psk-client.test-kit.js";
import { ContentType } from "./record.js";
import { ServerSession } from "./session.js";
import type { SessionOptions } from "./session-options.js";

const ca = createTestCa("Session CA");
const serverCert = ca.issue("server");
const device = ca.issue("device-1");
const deviceChain = [new X509Certificate(device.certPem).raw];
const rsaServer = ca.issueRsa("rsa-server");
const EMS = { type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) };
afterAll(() => ca.cleanup());

function start(client: PskTestClient, extra: Partial<SessionOptions> = {}) {
  const clock = new FakeClock();
  const jar = new CookieJar(clock.now);
  const verify = helloGate(client.hello(), "10.0.0.1:5684", jar);
  if (verify.kind !== "verify") throw new Error(verify.kind);
  const accepted = helloGate(client.hello(client.cookieOf(verify.reply)), "10.0.0.1:5684", jar);
  if (accepted.kind !== "accept") throw new Error(accepted.kind);
  const sent: Buffer[] = [];
  const closes: { reason: string; alert?: number }[] = [];
  const established: { identity: Buffer; suite: string }[] = [];
  const checked: Buffer[][] = [];
  const check: CheckClientCertificate = (chain) => {
    checked.push(chain);
    return Promise.resolve({ identity: Buffer.from("device-1") });
  };
  const session = new ServerSession(accepted, {
    certificate: loadServerCertificate(serverCert.certPem, serverCert.keyPem),
    checkClientCertificate: check,
    clock,
    send: (d) => sent.push(d),
    onData: () => undefined,
    onEstablished: (info) => established.push(info),
    onClose: (reason, alert) => closes.push({ reason, alert }),
    ...extra,
  });
  if (!session.closed) client.serverFlight(sent);
  return { session, sent, closes, established, checked };
}

const settle = () => new Promise((r) => setImmediate(r));

describe("ServerSession with ECDHE_ECDSA", () => {
  test("sends Certificate, ServerKeyExchange and CertificateRequest and establishes on a signed client flight", async () => {
    const client = new PskTestClient([0xc02b], [EMS]);
    const { session, sent, established, checked } = start(client);
    const types = client.open(sent[0]!).map((r) => r.plaintext[0]);
    expect(types).toEqual([
      HandshakeType.serverHello,
      HandshakeType.certificate,
      HandshakeType.serverKeyExchange,
      HandshakeType.certificateRequest,
      HandshakeType.serverHelloDone,
    ]);
    sent.length = 0;
    session.receive(client.certificateFlight(deviceChain, createPrivateKey(device.keyPem)));
    await settle();
    expect(checked).toEqual([deviceChain]);
    expect(established).toMatchObject([
      { identity: Buffer.from("device-1"), suite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256" },
    ]);
    const finished = client.open(sent[0]!).find((r) => r.type === ContentType.handshake)!;
    expect(finished.plaintext.subarray(12)).toEqual(client.expectedServerFinished());
  });

  test("a CertificateVerify signed with another key ends with decrypt_error before the check is asked", async () => {
    const client = new PskTestClient([0xc0ae], [EMS]);
    const { session, closes, checked } = start(client);
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    session.receive(client.certificateFlight(deviceChain, privateKey));
    await settle();
    expect(closes).toEqual([expect.objectContaining({ alert: AlertDescription.decryptError })]);
    expect(checked).toEqual([]);
  });

  test("a chain the check refuses ends with bad_certificate", async () => {
    const client = new PskTestClient([0xc0ae], [EMS]);
    const { session, closes, established } = start(client, {
      checkClientCertificate: () => Promise.resolve(undefined),
    });
    session.receive(client.certificateFlight(deviceChain, createPrivateKey(device.keyPem)));
    await settle();
    expect(closes).toEqual([expect.objectContaining({ alert: AlertDescription.badCertificate })]);
    expect(established).toEqual([]);
  });

  test("a client whose supported_groups leave out secp256r1 gets handshake_failure", () => {
    const x25519Only = { type: ExtensionType.supportedGroups, data: Buffer.from("0002001d", "hex") };
    const { closes } = start(new PskTestClient([0xc02b], [EMS, x25519Only]));
    expect(closes).toEqual([{ reason: "no cipher suite in common", alert: AlertDescription.handshakeFailure }]);
  });

  test("PSK suites are chosen only with a PSK lookup, and first when both are configured and offered", () => {
    const pskOnlyClient = start(new PskTestClient([0xc0a8], [EMS]));
    expect(pskOnlyClient.closes[0]?.alert).toBe(AlertDescription.handshakeFailure);
    const client = new PskTestClient([0xc02b, 0xc0a8], [EMS]);
    const { sent } = start(client, { lookupPsk: () => Promise.resolve([Buffer.alloc(16)]) });
    const hello = decodeServerHello(client.open(sent[0]!)[0]!.plaintext.subarray(12));
    expect(hello.ok && hello.value.cipherSuite).toBe(0xc0a8);
  });

  test("a session fed mutated copies of the certificate flight ends established, closed at one of several steps or waiting, never with internal_error", async () => {
    const next = random(7251);
    const key = createPrivateKey(device.keyPem);
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const client = new PskTestClient([0xc02b], [EMS]);
      const { session, closes } = start(client);
      const flight = client.certificateFlight(deviceChain, key);
      for (let i = 0; i < 50; i++) {
        session.receive(mutate(flight, next));
        if (i % 8 === 7) await settle();
      }
      await settle();
      expect(closes.filter((c) => c.alert === AlertDescription.internalError)).toEqual([]);
      // How it ended, with the step that refused a mutated message: the mutations reach more than one step.
      outcomes.add(session.established ? "established" : session.closed ? `closed: ${closes[0]?.reason}` : "waiting");
    }
    expect(outcomes.size).toBeGreaterThan(1);
  });

  test("with an RSA server key it chooses ECDHE_RSA, signs the ServerKeyExchange with rsa_pkcs1_sha256 and establishes", async () => {
    const client = new PskTestClient([0xc02b, 0xc0ae, 0xc02f], [EMS]);
    const rsa = { certificate: loadServerCertificate(rsaServer.certPem, rsaServer.keyPem) };
    const { session, sent, established } = start(client, rsa);
    const messages = sent.flatMap((d) => client.open(d)).map((r) => r.plaintext);
    const hello = decodeServerHello(messages.find((m) => m[0] === HandshakeType.serverHello)!.subarray(12));
    expect(hello.ok && hello.value.cipherSuite).toBe(0xc02f);
    const ske = decodeEcdheServerKeyExchange(
      messages.find((m) => m[0] === HandshakeType.serverKeyExchange)!.subarray(12),
    );
    if (!ske.ok || !hello.ok) throw new Error("ServerHello or ServerKeyExchange does not decode");
    expect(ske.value.algorithm).toBe(RSA_SHA256);
    const signed = Buffer.concat([client.random, hello.value.random, encodeEcdhParams(ske.value.point)]);
    const rsaPublic = new X509Certificate(rsaServer.certPem).publicKey;
    expect(createVerify("sha256").update(signed).verify(rsaPublic, ske.value.signature)).toBe(true);
    sent.length = 0;
    session.receive(client.certificateFlight(deviceChain, createPrivateKey(device.keyPem)));
    await settle();
    expect(established).toMatchObject([
      { identity: Buffer.from("device-1"), suite: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" },
    ]);
    const finished = client.open(sent[0]!).find((r) => r.type === ContentType.handshake)!;
    expect(finished.plaintext.subarray(12)).toEqual(client.expectedServerFinished());
  });

  test("an RSA server refuses a client that offers only ECDHE_ECDSA suites or cannot check rsa_pkcs1_sha256", () => {
    const rsa = { certificate: loadServerCertificate(rsaServer.certPem, rsaServer.keyPem) };
    const ecdsaOnly = start(new PskTestClient([0xc02b, 0xc0ae], [EMS]), rsa);
    expect(ecdsaOnly.closes[0]?.alert).toBe(AlertDescription.handshakeFailure);
    const ecdsaSignatures = { type: ExtensionType.signatureAlgorithms, data: encodeU16List([0x0403]) };
    const noRsa = start(new PskTestClient([0xc02f], [EMS, ecdsaSignatures]), rsa);
    expect(noRsa.closes[0]?.alert).toBe(AlertDescription.handshakeFailure);
  });

  test("a P-256 server does not choose ECDHE_RSA", () => {
    const { closes } = start(new PskTestClient([0xc02f], [EMS]));
    expect(closes[0]?.alert).toBe(AlertDescription.handshakeFailure);
  });
});
