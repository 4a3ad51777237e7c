/**
 * Test support for the central node's tests (not a test file): one node per test file on a fresh data folder, reached
 * over its real gRPC and REST ports, with a device of a product to authenticate.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import {
  AdapterMessageSchema,
  AuthenticateRequestSchema,
  Protocol,
  RegistryGrpcClient,
  create,
  grpc,
  type AdapterMessage,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type RegistryMessage,
} from "@iot/proto";
import { readCentralConfig } from "./config.js";
import { startCentral, type Central } from "./central.js";

/** The calls these tests make on the generic gRPC client, typed (its methods are not). */
type TestClient = grpc.Client & {
  authenticate(req: AuthenticateRequest, cb: (err: grpc.ServiceError | null, res: AuthenticateResponse) => void): void;
  connect(): grpc.ClientDuplexStream<AdapterMessage, RegistryMessage>;
};

/** A device as the REST API created it, with the credentials an adapter authenticates it with. */
interface TestDevice {
  id: number;
  deviceID: string;
  deviceUsername: string;
  token: string;
}

/**
 * Starts a central node before the file's tests (stopped after them), logged in as its administrator, with a product
 * and one device (`device`, filled in then). Answers the helpers the tests call it with.
 */
export function centralUnderTest() {
  let dir: string;
  let central: Central;
  let client: TestClient;
  let token = "";
  const device = {} as TestDevice;

  /** A REST call as the administrator: the status and the JSON body (null when none). */
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${central.apiPort}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return {
      status: res.status,
      body: await res
        .text()
        .then((text) => JSON.parse(text))
        .catch(() => null),
    };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "central-test-"));
    const config = readCentralConfig({
      IOT_DATA_DIR: dir,
      IOT_API_PORT: "0",
      IOT_GRPC_PORT: "0",
      IOT_API_HOST: "127.0.0.1",
      IOT_ADMIN_PASSWORD: "pw-123456",
      IOT_SESSION_GRACE: "1",
    });
    central = await startCentral(config, pino({ level: "silent" }));
    client = new RegistryGrpcClient(
      `127.0.0.1:${central.grpcPort}`,
      grpc.credentials.createInsecure(),
    ) as unknown as TestClient;
    token = (await api("POST", "/login", { username: "admin", password: "pw-123456" })).body.token;
    const product = (await api("POST", "/products", { productName: "p", cloudProtocol: 1 })).body;
    const created = await api("POST", "/devices", {
      productID: product.productID,
      deviceName: "d1",
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
    });
    Object.assign(device, created.body);
  });

  afterAll(async () => {
    client?.close();
    await central?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An MQTT adapter's Authenticate of a device's token credentials, from 10.0.0.9. */
  function authenticate(username: string, token: string, clientId = ""): Promise<AuthenticateResponse> {
    return new Promise((resolve, reject) =>
      client.authenticate(
        create(AuthenticateRequestSchema, {
          protocol: Protocol.MQTT,
          clientIp: "10.0.0.9",
          adapterInstanceId: "test",
          credentials: { kind: { case: "token", value: { clientId, username, token } } },
        }),
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    );
  }

  /** A Connect stream with a queue of what the registry sent. */
  function openStream() {
    const call = client.connect();
    const inbox: RegistryMessage[] = [];
    const waiters: Array<() => void> = [];
    call.on("data", (m: RegistryMessage) => {
      inbox.push(m);
      waiters.splice(0).forEach((w) => w());
    });
    call.on("error", () => {});
    const send = (kind: AdapterMessage["kind"]) => call.write(create(AdapterMessageSchema, { kind }));
    const next = async <C extends RegistryMessage["kind"]["case"]>(kase: C, timeoutMs = 3000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = inbox.findIndex((m) => m.kind.case === kase);
        if (i >= 0) return inbox.splice(i, 1)[0]!.kind.value as Extract<RegistryMessage["kind"], { case: C }>["value"];
        if (Date.now() > deadline) throw new Error(`no ${kase} within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          const timer = setTimeout(r, Math.max(0, deadline - Date.now()) + 1); // the deadline: fail then
          waiters.push(() => (clearTimeout(timer), r()));
        });
      }
    };
    return { call, send, next };
  }

  /** A new device, authenticated, and the SessionOpened an adapter would send for it. */
  async function newSession(name: string, clientIp: string) {
    const product = (await api("GET", "/products")).body.items[0];
    const d = (
      await api("POST", "/devices", {
        productID: product.productID,
        deviceName: name,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      })
    ).body;
    const auth = await authenticate(d.deviceUsername, d.token);
    const opened = {
      $typeName: "iot.registry.v1.SessionOpened" as const,
      sessionId: auth.sessionId,
      deviceIntId: BigInt(d.id),
      clientIp,
      keepAlive: 60,
      openedAtMs: BigInt(Date.now()),
      tenantId: auth.device!.tenantId,
      credentialStamp: auth.credentialStamp,
      sleeping: false,
    };
    return { d, opened };
  }

  return { api, device, authenticate, openStream, newSession };
}
