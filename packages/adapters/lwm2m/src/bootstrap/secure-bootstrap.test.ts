import { afterEach, describe, expect, it } from "vitest";
import { IMEI, memoryHarness, type Harness } from "../memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const defaults = () => ({
  nosecUri: "coap://lwm2m.test:5783",
  pskUri: "coaps://lwm2m.test:5784",
  lifetime: 300,
  binding: "U",
});

describe("LwM2M bootstrap over DTLS with a pre-shared key", () => {
  it("writes PSK Security pointing at the DTLS listener, identity the endpoint name and key the device's token", async () => {
    h = memoryHarness({ secure: true, server: { bootstrapDefaults: defaults } });
    h.server.secure.established(h.link.devicePeer, Buffer.from(IMEI), () => {});
    const result = await h.client.bootstrap();
    expect(result).toMatchObject({
      serverUri: "coaps://lwm2m.test:5784",
      securityMode: 0,
      identity: Buffer.from(IMEI).toString("hex"),
      key: Buffer.from("key").toString("hex"),
    });
    expect((await h.client.register()).code).toBe("2.01");
  });

  it("refuses with 4.03 a Bootstrap-Request of another endpoint than the session's identity", async () => {
    h = memoryHarness({
      secure: true,
      client: { endpoint: "356938035643809" },
      server: { bootstrapDefaults: defaults },
    });
    h.server.secure.established(h.link.devicePeer, Buffer.from(IMEI), () => {});
    await expect(h.client.bootstrap()).rejects.toThrow("4.03");
    expect(h.client.requests).toEqual([]);
  });

  it("answers 4.01 to a Bootstrap-Request on no DTLS session", async () => {
    h = memoryHarness({ secure: true });
    await expect(h.client.bootstrap()).rejects.toThrow("4.01");
  });
});
