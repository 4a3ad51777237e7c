import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  AuthResult,
  AuthenticateBatchRequestSchema,
  AuthenticateRequestSchema,
  Protocol,
  create,
  type AuthenticateBatchResponse,
  type AuthenticateResponse,
  grpc,
} from "@iot/proto";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { findTenant, updateTenant } from "../domain/tenants.js";
import { twoTenants } from "../domain/test-tenants.js";
import { SessionTable } from "../sessions/session-table.js";
import { engines } from "../store/test-engines.js";
import { AUTHENTICATE_BATCH_MAX } from "./authenticate.js";
import { registryHandlers, type RegistryServiceDeps } from "./registry-service.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("Authenticate under a tenant's connection limit on $name", (engine) => {
  it("refuses a new device's session over maxConnections, answers the uplink rate, and frees places", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const sessions = new SessionTable();
    const deps = { db, sessions, logger: pino({ level: "silent" }), publicHost: "x" } as unknown as RegistryServiceDeps;
    const handler = registryHandlers(deps).authenticate as grpc.handleUnaryCall<unknown, AuthenticateResponse>;
    const authenticate = (d: { deviceUsername: string; token: string }) =>
      new Promise<AuthenticateResponse>((resolve, reject) => {
        const request = create(AuthenticateRequestSchema, {
          protocol: Protocol.MQTT,
          credentials: { kind: { case: "token", value: { clientId: "", username: d.deviceUsername, token: d.token } } },
          clientIp: "127.0.0.1",
        });
        handler({ request } as grpc.ServerUnaryCall<unknown, AuthenticateResponse>, (err, res) =>
          err ? reject(new Error(String(err.details))) : resolve(res!),
        );
      });
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    const otherLamps = await createProduct(db, other, { productName: "Lamps", cloudProtocol: 1 });
    const lamp = (c: typeof caller, productId: string, deviceName: string) =>
      createDevice(db, c, { productId, deviceName, upLinkSystem: 1, authType: 1 });
    const [a, b, c] = [
      await lamp(caller, lamps.productId, "a"),
      await lamp(caller, lamps.productId, "b"),
      await lamp(caller, lamps.productId, "c"),
    ];
    const elsewhere = await lamp(other, otherLamps.productId, "x");
    const tenant = (await findTenant(db, caller.tenantId))!;
    await updateTenant(db, tenant.id, { maxConnections: 2, maxUplinkRate: 40 });

    const first = await authenticate(a);
    expect(first.result).toBe(AuthResult.OK);
    expect(first.tenantLimits).toMatchObject({ tenantId: caller.tenantId, maxUplinkRate: 40 });
    expect((await authenticate(b)).result).toBe(AuthResult.OK);
    const refused = await authenticate(c);
    expect(refused).toMatchObject({ result: AuthResult.QUOTA_EXCEEDED, sessionId: "" });
    expect(refused.message).toMatch(/connection limit \(2\)/);
    // A device already holding a place reconnects; another tenant is not counted against this one.
    expect((await authenticate(a)).result).toBe(AuthResult.OK);
    const x = await authenticate(elsewhere);
    expect(x.result).toBe(AuthResult.OK);
    expect(x.tenantLimits?.maxUplinkRate).toBe(0);

    // The sessions open on an adapter; when b's closes, c gets its place.
    const link = { instanceId: "mqtt-1" } as Parameters<SessionTable["attach"]>[0];
    sessions.attach(link);
    const open = (sessionId: string, deviceIntId: number) =>
      sessions.open("mqtt-1", {
        sessionId,
        deviceIntId,
        tenantId: caller.tenantId,
        clientIp: "",
        keepAlive: 0,
        openedAt: 0,
        credentialStamp: "",
      });
    open(first.sessionId, a.id);
    open("b-session", b.id);
    expect((await authenticate(c)).result).toBe(AuthResult.QUOTA_EXCEEDED);
    sessions.close("mqtt-1", "b-session");
    // b's pending Authenticate still counts for 10 s after it was answered; a later one would not.
    expect(sessions.admits(caller.tenantId, c.id, 2, Date.now() + 11_000)).toBe(true);
    // Lifting the limit (0) admits at once.
    await updateTenant(db, tenant.id, { maxConnections: 0 });
    expect((await authenticate(c)).result).toBe(AuthResult.OK);
  });

  it("answers an AuthenticateBatch in request order, admitting no more devices of a tenant than it has places", async () => {
    const { db, caller } = await twoTenants(engine);
    const deps = {
      db,
      sessions: new SessionTable(),
      logger: pino({ level: "silent" }),
      publicHost: "x",
    } as unknown as RegistryServiceDeps;
    const handler = registryHandlers(deps).authenticateBatch as grpc.handleUnaryCall<
      unknown,
      AuthenticateBatchResponse
    >;
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    const devices = [];
    for (const name of ["a", "b", "c"])
      devices.push(
        await createDevice(db, caller, { productId: lamps.productId, deviceName: name, upLinkSystem: 1, authType: 1 }),
      );
    await updateTenant(db, (await findTenant(db, caller.tenantId))!.id, { maxConnections: 2 });
    const credentials = [...devices, { deviceUsername: devices[0]!.deviceUsername, token: "wrong" }];
    const request = create(AuthenticateBatchRequestSchema, {
      requests: credentials.map((d) => ({
        protocol: Protocol.MQTT,
        credentials: {
          kind: { case: "token" as const, value: { clientId: "", username: d.deviceUsername, token: d.token } },
        },
        clientIp: "127.0.0.1",
      })),
    });
    const res = await new Promise<AuthenticateBatchResponse>((resolve, reject) =>
      handler({ request } as grpc.ServerUnaryCall<unknown, AuthenticateBatchResponse>, (err, r) =>
        err ? reject(new Error(String(err.details))) : resolve(r!),
      ),
    );
    expect(res.responses.map((r) => r.result)).toEqual([
      AuthResult.OK,
      AuthResult.OK,
      AuthResult.QUOTA_EXCEEDED,
      AuthResult.BAD_CREDENTIALS,
    ]);
    expect(res.responses.map((r) => Number(r.device?.deviceIntId ?? 0))).toEqual([
      devices[0]!.id,
      devices[1]!.id,
      0,
      0,
    ]);
  });

  it("refuses an AuthenticateBatch of more requests than its bound with INVALID_ARGUMENT naming the bound", async () => {
    const { db } = await twoTenants(engine);
    const deps = { db, sessions: new SessionTable(), logger: pino({ level: "silent" }), publicHost: "x" };
    const handler = registryHandlers(deps as unknown as RegistryServiceDeps).authenticateBatch as grpc.handleUnaryCall<
      unknown,
      AuthenticateBatchResponse
    >;
    const one = {
      protocol: Protocol.MQTT,
      credentials: { kind: { case: "token" as const, value: { username: "u" } } },
    };
    const request = create(AuthenticateBatchRequestSchema, {
      requests: Array.from({ length: AUTHENTICATE_BATCH_MAX + 1 }, () => one),
    });
    const err = await new Promise<Partial<grpc.StatusObject>>((resolve) =>
      handler({ request } as grpc.ServerUnaryCall<unknown, AuthenticateBatchResponse>, (e) => resolve(e ?? {})),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toContain(`at most ${AUTHENTICATE_BATCH_MAX}`);
  });
});
