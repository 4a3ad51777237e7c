/**
 * The gRPC registry client's IssueListenerCertificate: retried until the registry is reachable, refused with the
 * registry's reason, given up when the client closes.
 */
import { describe, expect, it } from "vitest";
import { quietFor } from "@iot/config/testing";
import { grpc } from "@iot/proto";
import { freePort, useTestRegistries } from "./grpc-test-server.js";

const { registry, client } = useTestRegistries();

describe("GrpcRegistryClient listener certificate", () => {
  it("asks for a listener certificate until the registry is reachable, then answers its PEMs", async () => {
    const port = await freePort();
    const c = client(port);
    const issued = c.issueListenerCertificate("csr-pem", ["localhost", "127.0.0.1"]);
    let settled = false;
    void issued.finally(() => (settled = true));
    await quietFor(300, "nothing listens yet: the request is retried meanwhile and must not settle");
    expect(settled).toBe(false);
    const s = await registry(port);
    const seen: { csrPem: string; hostnames: string[]; adapterInstanceId: string }[] = [];
    s.issueListenerCertificate = (req) => {
      seen.push({ csrPem: req.csrPem, hostnames: req.hostnames, adapterInstanceId: req.adapterInstanceId });
      return { certPem: "cert", caPem: "ca" };
    };
    expect(await issued).toEqual({ certPem: "cert", caPem: "ca" });
    expect(seen).toEqual([
      { csrPem: "csr-pem", hostnames: ["localhost", "127.0.0.1"], adapterInstanceId: c.instanceId },
    ]);
  });

  it("rejects with REQUEST_REJECTED and the registry's reason when the registry refuses the request", async () => {
    const s = await registry();
    s.issueListenerCertificate = () => ({
      code: grpc.status.INVALID_ARGUMENT,
      details: "csrPem: not a PEM certificate request",
    });
    await expect(client(s.port).issueListenerCertificate("x", ["localhost"])).rejects.toMatchObject({
      name: "AdapterError",
      code: "REQUEST_REJECTED",
      message: "registry refused the listener certificate: csrPem: not a PEM certificate request",
    });
  });

  it("stops asking with CLIENT_CLOSED once the client is closed", async () => {
    const c = client(await freePort());
    const issued = c.issueListenerCertificate("x", ["localhost"]);
    await c.close();
    await expect(issued).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });
});
