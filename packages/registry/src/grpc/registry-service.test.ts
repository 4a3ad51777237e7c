import { createPrivateKey, webcrypto, X509Certificate, type KeyObject } from "node:crypto";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { create, grpc, IssueListenerCertificateRequestSchema, type IssueListenerCertificateResponse } from "@iot/proto";
import * as x509 from "../certs/x509.js";
import { engines } from "../store/test-engines.js";
import { registryHandlers, type RegistryServiceDeps } from "./registry-service.js";

const sqlite = engines.find((e) => e.name === "sqlite")!;
afterAll(() => sqlite.cleanup());

/** Calls the IssueListenerCertificate handler in process, as grpc-js would. */
async function issue(
  csrPem: string,
  hostnames: string[],
): Promise<{ err: Partial<grpc.StatusObject> | null; res?: IssueListenerCertificateResponse }> {
  const { store } = await sqlite.open();
  const deps = {
    db: store.db,
    logger: pino({ level: "silent" }),
    publicHost: "iot.example.com",
  } as unknown as RegistryServiceDeps;
  const handler = registryHandlers(deps).issueListenerCertificate as grpc.handleUnaryCall<
    unknown,
    IssueListenerCertificateResponse
  >;
  const request = create(IssueListenerCertificateRequestSchema, { csrPem, hostnames, adapterInstanceId: "mqtt-test" });
  return new Promise((resolve) => {
    handler({ request } as grpc.ServerUnaryCall<unknown, IssueListenerCertificateResponse>, (err, res) =>
      resolve({ err: err, ...(res ? { res } : {}) }),
    );
  });
}

/** A CSR for a fresh P-256 key, and that key. */
async function newCsr(): Promise<{ csrPem: string; key: KeyObject }> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: "CN=x", keys, signingAlgorithm: alg });
  const key = createPrivateKey({
    key: Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)),
    format: "der",
    type: "pkcs8",
  });
  return { csrPem: csr.toString("pem"), key };
}

describe("IssueListenerCertificate", () => {
  it("answers a certificate for the CSR's key and the CA that issued it", async () => {
    const { csrPem, key } = await newCsr();
    const { err, res } = await issue(csrPem, ["iot.example.com", "localhost", "127.0.0.1", "::1"]);
    expect(err).toBeNull();
    const cert = new X509Certificate(res!.certPem);
    expect(cert.checkIssued(new X509Certificate(res!.caPem))).toBe(true);
    expect(cert.checkPrivateKey(key)).toBe(true);
    expect(cert.subjectAltName).toBe(
      "DNS:iot.example.com, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
  });

  it("answers PERMISSION_DENIED naming a host that is neither the public host nor a loopback name", async () => {
    const { csrPem } = await newCsr();
    for (const host of ["bank.example.com", "10.0.0.5", "iot.example.com.evil.net"]) {
      const { err, res } = await issue(csrPem, ["iot.example.com", "localhost", host]);
      expect(res).toBeUndefined();
      expect(err).toMatchObject({
        code: grpc.status.PERMISSION_DENIED,
        details: `hostnames: "${host}" is neither the public host (IOT_PUBLIC_HOST=iot.example.com) nor a loopback name (localhost, 127.0.0.1, ::1)`,
      });
    }
  });

  it("answers INVALID_ARGUMENT with the reason for a bad CSR or bad hostnames", async () => {
    expect((await issue("not a csr", ["localhost"])).err).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "csrPem: not a PEM certificate request",
    });
    expect((await issue("not a csr", [])).err).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "hostnames: at least one hostname is required",
    });
  });
});
