import { afterAll, describe, expect, it } from "vitest";
import { authOutcomeToProto } from "../grpc/convert.js";
import { engines } from "../store/test-engines.js";
import { authenticateDevice } from "../domain/device-auth.js";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { pskKeysOf } from "../domain/psk-auth.js";
import { updateDevice } from "../domain/update-device.js";
import { twoTenants } from "../domain/test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const LWM2M = 3;

describe.each(engines)("LwM2M bootstrap settings on $name", (engine) => {
  async function setup(lwm2mBootstrap: Record<string, unknown> | null) {
    const { db, caller } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "NB meters", cloudProtocol: LWM2M });
    const meter = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "meter",
      upLinkSystem: 1,
      authType: 1,
      imei: "868333030000101",
      autoSub: 0,
      lwm2mBootstrap,
    });
    const ask = (bootstrap: boolean) =>
      authenticateDevice(db, {
        protocol: LWM2M,
        clientIp: "10.1.1.1",
        credentials: { kind: "lwm2m", endpoint: "868333030000101", bootstrap },
      });
    return { db, caller, meter, ask };
  }

  it("answers an LwM2M authentication with the record's settings, as AuthenticateResponse fields 19-22", async () => {
    const { ask } = await setup({ securityMode: "nosec", lifetime: 90, binding: "UQ" });
    const outcome = await ask(false);
    expect(outcome).toMatchObject({ ok: true, lwm2mBootstrap: { securityMode: "nosec", lifetime: 90, binding: "UQ" } });
    expect(authOutcomeToProto(outcome)).toMatchObject({
      lwm2mSecurityMode: "nosec",
      lwm2mServerUri: "",
      lwm2mLifetime: 90,
      lwm2mBinding: "UQ",
    });
  });

  it("gives the PSK keys to a Bootstrap-Request only, and only when the settings ask for PSK", async () => {
    const { db, caller, meter, ask } = await setup({ securityMode: "psk" });
    expect(await ask(true)).toMatchObject({ ok: true, pskKeys: pskKeysOf(meter.token) });
    expect(await ask(false)).not.toHaveProperty("pskKeys");
    await updateDevice(db, caller, meter.id, { lwm2mBootstrap: { securityMode: "nosec" } });
    expect(await ask(true)).not.toHaveProperty("pskKeys");
    await updateDevice(db, caller, meter.id, { lwm2mBootstrap: null });
    const cleared = await ask(true);
    expect(cleared).not.toHaveProperty("lwm2mBootstrap");
    expect(authOutcomeToProto(cleared)).toMatchObject({ lwm2mSecurityMode: "", lwm2mLifetime: 0 });
  });
});
