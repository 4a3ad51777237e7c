import { afterEach, describe, expect, it } from "vitest";
import { IMEI, memoryHarness, type Harness } from "./memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

/** Tells the server a DTLS session of `identity` completed from the harness's device; answers its `end` calls. */
function establish(harness: Harness, identity: string): string[] {
  const ended: string[] = [];
  harness.server.secure.established(harness.link.devicePeer, Buffer.from(identity), (reason) => ended.push(reason));
  return ended;
}

describe("LwM2M registration over DTLS with a pre-shared key", () => {
  it("asks the registry for the identity's keys as the LwM2M adapter, with the urn:imei: prefix stripped", async () => {
    h = memoryHarness({ secure: true });
    expect(await h.server.secure.lookupPsk(Buffer.from(`urn:imei:${IMEI}`), h.link.devicePeer)).toEqual([
      Buffer.from("key"),
    ]);
    expect(h.registry.pskAsked).toEqual([{ protocol: "lwm2m", identity: IMEI }]);
  });

  it("answers 4.01 to a Register on no DTLS session", async () => {
    h = memoryHarness({ secure: true });
    expect((await h.client.register()).code).toBe("4.01");
    expect(h.registry.authAttempts).toEqual([]);
  });

  it("registers the session's device with PSK credentials, its endpoint with or without urn:imei:", async () => {
    h = memoryHarness({ secure: true, client: { endpoint: `urn:imei:${IMEI}` } });
    establish(h, IMEI);
    expect((await h.client.register()).code).toBe("2.01");
    expect(h.registry.pskAsked).toEqual([{ protocol: "lwm2m", identity: IMEI }]);
    expect(h.server.registrations.size).toBe(1);
  });

  it("refuses with 4.03 a Register of another endpoint than the session's identity", async () => {
    h = memoryHarness({ secure: true, client: { endpoint: "356938035643809" } });
    establish(h, IMEI);
    expect((await h.client.register()).code).toBe("4.03");
    expect(h.registry.authAttempts).toEqual([]);
    expect(h.server.registrations.size).toBe(0);
  });

  it("ends the DTLS session when the registered device's session is kicked", async () => {
    h = memoryHarness({ secure: true });
    const ended = establish(h, IMEI);
    expect((await h.client.register()).code).toBe("2.01");
    h.registry.kick(7, "blocked");
    expect(ended).toEqual(["kicked: blocked"]);
    expect(h.server.registrations.size).toBe(0);
  });
});
