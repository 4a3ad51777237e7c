import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, type MessageLayer, type Peer } from "@iot/adapter-coap";
import { Lwm2mClientSimulator } from "@iot/adapter-lwm2m";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DtlsPskClient } from "./dtls-psk-client.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

/**
 * An LwM2M client over DTLS with a Connection ID (RFC 9146) whose address changes: its session, its registration and
 * its device follow it to the new port, so its Update from there is taken and a command goes to it there.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
const running: { dtls: DtlsPskClient; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "lwm2ms-cid", cloudProtocol: 3 })).body.productID;
  const url = new URL(t.lwm2msUrl);
  server = { address: url.hostname, port: Number(url.port) };
}, 90_000);
afterAll(async () => {
  for (const r of running.splice(0)) {
    r.layer.close();
    r.dtls.close();
  }
  await t?.close();
});

const controlStatus = async (id: number) =>
  (await t.api("GET", `/devices/${id}/control_logs`)).body.items[0]?.publishStatus;

describe("LwM2M over DTLS with a Connection ID", () => {
  it("takes the Update of a client that moved to another port and sends its next command there", async () => {
    const IMEI = "353000000099001";
    const d = await t.newDevice(productID, "lwm2ms-cid-0", { IMEI, autoSub: 0 });
    const dtls = await DtlsPskClient.connect(server.address, server.port, IMEI, Buffer.from(d.token, "hex"), {
      connectionId: Buffer.from("0102", "hex"),
    });
    expect(dtls.serverConnectionId).toHaveLength(6);
    const sim = new Lwm2mClientSimulator({ endpoint: IMEI, lifetime: 60 });
    const layer = createMessageLayer(sim.handler, {
      logger: createAdapterLogger("lwm2m-simulator", "silent"),
      maxBodyBytes: 65_536,
      send: (datagram) => dtls.send(datagram),
    });
    dtls.onData((data) => layer.handle(data, server, (answer) => dtls.send(answer)));
    running.push({ dtls, layer });
    sim.attach(layer, server);
    expect((await sim.register()).code).toBe("2.01");

    const oldPort = dtls.localPort;
    await dtls.move();
    expect(dtls.localPort).not.toBe(oldPort);
    expect((await sim.update()).code).toBe("2.04");
    const sent = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: JSON.stringify({ reqID: "cid1", msgType: "read", data: { path: "/3303/0/5700" } }),
    });
    expect(sent.body.publishStatus).toBe("1");
    // The old socket is closed: the read can only have been answered from the new port.
    await expect.poll(() => controlStatus(d.id), { timeout: 10_000 }).toBe(2);
    expect(sim.requests.map((r) => r.path)).toContain("/3303/0/5700");
  });
});
