import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  AuthenticateRequestSchema,
  AuthResult,
  create,
  grpc,
  RegistryGrpcClient,
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
