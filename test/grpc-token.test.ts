import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterLogger, GrpcRegistryClient, type DeviceCredentials } from "@iot/adapter-core";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

let f: TestFleet;
let device: TestDevice;
const clients: GrpcRegistryClient[] = [];

beforeAll(async () => {
  f = await startTestFleet();
  const product = await f.api("POST", "/products", { productName: "grpc-token", cloudProtocol: 1 });
  device = await f.newDevice(product.body.productID, "grpc-token-device");
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await f?.close();
});

/** A client of the fleet's gRPC endpoint, as an adapter of someone else would make it. */
function registryClient(token?: string): GrpcRegistryClient {
  const client = new GrpcRegistryClient({
    address: reachable(f.fleet.central.urls.grpc!),
    protocol: "mqtt",
    logger: createAdapterLogger("grpc-token-test", "silent"),
    backoff: { initialMs: 50, maxMs: 50 },
    ...(token ? { token } : {}),
  });
  clients.push(client);
  return client;
}

/** A P-256 key's certificate request made by openssl, as an operator's tooling would. */
function csr(): string {
  return execFileSync(
    "openssl",
    [
      "req",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "/dev/null",
      "-subj",
      "/CN=x",
    ],
    { encoding: "utf8", input: "", stdio: ["pipe", "pipe", "ignore"] },
  );
}

const credentials = (): DeviceCredentials => ({
  kind: "token",
  clientId: device.deviceID,
  username: device.deviceUsername,
  token: device.token,
});

describe("the fleet pnpm start launches, without IOT_REGISTRY_TOKEN given", () => {
  it("shares a token it made for this run, and never prints it", () => {
    expect(f.fleet.registryTokenGenerated).toBe(true);
    expect(f.fleet.registryToken).toMatch(/^[\w-]{43}$/);
    for (const p of [f.fleet.central, ...f.fleet.adapters])
      expect([...p.output, ...p.errors].join("\n"), p.name).not.toContain(f.fleet.registryToken);
  });

  it("refuses Authenticate and IssueListenerCertificate from a caller without the token", async () => {
    for (const client of [registryClient(), registryClient("guessed-token")]) {
      expect(await client.authenticate("mqtt", credentials(), "127.0.0.1")).toEqual({
        ok: false,
        code: "UNAVAILABLE",
        message: "registry unreachable: adapter token missing or wrong (IOT_REGISTRY_TOKEN)",
      });
      await expect(client.issueListenerCertificate(csr(), ["localhost"])).rejects.toThrow(
        "registry refused the listener certificate: adapter token missing or wrong (IOT_REGISTRY_TOKEN)",
      );
    }
  });

  it("serves a caller with the token, signing listener certificates only for the public host and loopback", async () => {
    const client = registryClient(f.fleet.registryToken);
    expect(await client.authenticate("mqtt", credentials(), "127.0.0.1")).toMatchObject({ ok: true });
    const issued = await client.issueListenerCertificate(csr(), ["localhost", "127.0.0.1", "::1"]);
    expect(issued.certPem).toContain("-----BEGIN CERTIFICATE-----");
    await expect(client.issueListenerCertificate(csr(), ["localhost", "bank.example.com"])).rejects.toThrow(
      'registry refused the listener certificate: hostnames: "bank.example.com" is neither the public host ' +
        "(IOT_PUBLIC_HOST=localhost) nor a loopback name (localhost, 127.0.0.1, ::1)",
    );
  });
});
