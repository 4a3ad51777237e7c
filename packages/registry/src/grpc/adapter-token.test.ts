import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  AuthenticateRequestSchema,
  AuthResult,
  create,
  grpc,
  RegistryGrpcClient,
  registryServiceDefinition,
  type AuthenticateResponse,
} from "@iot/proto";
import { engines } from "../store/test-engines.js";
import { startGrpcServer, stopGrpcServer, type RegistryServiceDeps } from "./registry-service.js";

const sqlite = engines.find((e) => e.name === "sqlite")!;
const servers: grpc.Server[] = [];
afterAll(async () => {
  for (const s of servers) await stopGrpcServer(s, 100);
  await sqlite.cleanup();
});

type Raw = grpc.Client & {
  authenticate(
    req: unknown,
    md: grpc.Metadata,
    cb: (err: grpc.ServiceError | null, res?: AuthenticateResponse) => void,
  ): void;
};

async function server(token?: string): Promise<number> {
  const { store } = await sqlite.open();
  const deps = { db: store.db, logger: pino({ level: "silent" }) } as unknown as RegistryServiceDeps;
  const { port, server } = await startGrpcServer(deps, "127.0.0.1", 0, token);
  servers.push(server);
  return port;
}

function authenticate(
  port: number,
  authorization?: string,
): Promise<{ err: grpc.ServiceError | null; res?: AuthenticateResponse }> {
  const client = new RegistryGrpcClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Raw;
  const md = new grpc.Metadata();
  if (authorization) md.set("authorization", authorization);
  const req = create(AuthenticateRequestSchema, {
    credentials: { kind: { case: "token", value: { clientId: "", username: "nobody", token: "x" } } },
  });
  return new Promise((resolve) =>
    client.authenticate(req, md, (err, res) => {
      client.close();
      resolve({ err, ...(res ? { res } : {}) });
    }),
  );
}

describe("the adapter token on the gRPC endpoint", () => {
  it("serves only calls that present it", async () => {
    const port = await server("s3cret-token");
    expect((await authenticate(port)).err?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await authenticate(port, "Bearer wrong")).err?.code).toBe(grpc.status.UNAUTHENTICATED);
    const ok = await authenticate(port, "Bearer s3cret-token");
    expect(ok.err).toBeNull();
    expect(ok.res?.result).toBe(AuthResult.BAD_CREDENTIALS);
  });

  it("serves every call when none is configured", async () => {
    const port = await server();
    expect((await authenticate(port)).res?.result).toBe(AuthResult.BAD_CREDENTIALS);
  });
});

/**
 * Calls method `name` of the service with an empty message (a valid protobuf of every request type) and resolves
 * with the status it ended with; a stream still open after `openMs` is cancelled (CANCELLED).
 */
function callMethod(port: number, name: string, authorization?: string, openMs = 300): Promise<grpc.StatusObject> {
  const def = registryServiceDefinition[name]!;
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  if (authorization) md.set("authorization", authorization);
  const id = (b: Buffer) => b;
  const empty = Buffer.alloc(0);
  return new Promise((resolve) => {
    const cb = () => {};
    let call: grpc.Call;
    if (!def.requestStream && !def.responseStream) call = client.makeUnaryRequest(def.path, id, id, empty, md, cb);
    else if (def.requestStream && !def.responseStream) call = client.makeClientStreamRequest(def.path, id, id, md, cb);
    else if (!def.requestStream) call = client.makeServerStreamRequest(def.path, id, id, empty, md);
    else call = client.makeBidiStreamRequest(def.path, id, id, md);
    const timer = setTimeout(() => call.cancel(), openMs);
    // Streams emit "error" and "data" too (grpc-js types only a unary call's events).
    const events = call as unknown as NodeJS.EventEmitter;
    events.on("error", () => {});
    events.on("data", () => {});
    events.on("status", (status: grpc.StatusObject) => {
      clearTimeout(timer);
      client.close();
      resolve(status);
    });
    if (def.requestStream) (call as grpc.ClientWritableStream<Buffer>).write(empty);
  });
}

describe("every method of the gRPC endpoint", () => {
  const methods = Object.keys(registryServiceDefinition);

  it("is refused UNAUTHENTICATED without the adapter token or with a wrong one, and served with it", async () => {
    expect(methods.length).toBeGreaterThanOrEqual(2);
    const port = await server("s3cret-token");
    for (const name of methods) {
      for (const authorization of [undefined, "Bearer wrong", "s3cret-token", "Bearer s3cret-token "]) {
        const status = await callMethod(port, name, authorization);
        expect({ name, authorization, code: status.code }).toEqual({
          name,
          authorization,
          code: grpc.status.UNAUTHENTICATED,
        });
      }
      const served = await callMethod(port, name, "Bearer s3cret-token");
      expect({ name, code: served.code }).not.toEqual({ name, code: grpc.status.UNAUTHENTICATED });
    }
  });
});
