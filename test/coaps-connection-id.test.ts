import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, type MessageLayer, type Peer } from "@iot/adapter-coap";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DtlsPskClient } from "./dtls-psk-client.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * A CoAP device over DTLS with a Connection ID (RFC 9146) whose address changes, as a cellular device's NAT binding
 * does between sleeps: the dtls package's own client (no Debian build of OpenSSL, GnuTLS or libcoap offers RFC 9146)
 * with the adapter's message layer as the device's CoAP stack. Its session, its device and its observation of the
 * commands topic follow it to the new port with no new handshake.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { dtls: DtlsPskClient; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet({ IOT_COAP_KEEPALIVE: "30" }, { adapters: ["coap-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "coaps-cid", cloudProtocol: 2 })).body.productID;
  const url = new URL(t.coapsUrl);
  server = { address: url.hostname, port: Number(url.port) };
}, 90_000);
afterEach(() => {
  for (const r of running.splice(0)) {
    r.layer.close();
    r.dtls.close();
  }
});
afterAll(() => t?.close());

/** A device on a DTLS session with a Connection ID; its CoAP requests and answers go inside the session. */
async function device(d: TestDevice): Promise<{ dtls: DtlsPskClient; layer: MessageLayer }> {
  const connectionId = Buffer.from("c1d2c3d4", "hex");
  const dtls = await DtlsPskClient.connect(server.address, server.port, d.deviceUsername, Buffer.from(d.token, "hex"), {
    connectionId,
  });
  const layer = createMessageLayer(() => Promise.resolve({ code: "4.04" }), {
    logger: createAdapterLogger("coaps-device", "silent"),
    maxBodyBytes: 65_536,
    send: (datagram) => dtls.send(datagram),
  });
  dtls.onData((data) => layer.handle(data, server, (answer) => dtls.send(answer)));
  const r = { dtls, layer };
  running.push(r);
  return r;
}

const command = (d: TestDevice, payload: string) => t.api("POST", "/device_publish", { deviceID: d.deviceID, payload });
const lastControlStatus = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus;
const events = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/events?_limit=100`)).body.items as { topic: string; payload: string }[];

describe("CoAP over DTLS with a Connection ID", () => {
  it("keeps the device's observation when it moves to another port: a command after the move is notified there", async () => {
    const d = await t.newDevice(productID, `coaps-cid-${n++}`);
    const { dtls, layer } = await device(d);
    expect(dtls.serverConnectionId).toHaveLength(6);
    const notified: string[] = [];
    const observation = await layer.observe(server, { method: "GET", path: ["mqtt", "inbox"], observe: 0 }, (note) => {
      notified.push(note.payload.toString());
    });
    expect(observation.response.code).toBe("2.05");
    expect(observation.active).toBe(true);
    await command(d, "before the move");
    await expect.poll(() => notified, { timeout: 10_000 }).toEqual(["before the move"]);

    const oldPort = dtls.localPort;
    await dtls.move();
    expect(dtls.localPort).not.toBe(oldPort);
    // Its first record from the new port moves the session (and its device) there.
    const published = await layer.request(server, { method: "POST", path: ["mqtt", "moved"], payload: "new port" });
    expect(published.code).toBe("2.04");
    expect((await events(d)).map((e) => [e.topic, e.payload])).toContainEqual(["moved", "new port"]);

    // The old socket is closed: the notification can only arrive at the new address, on the same observation.
    await command(d, "after the move");
    await expect.poll(() => notified, { timeout: 10_000 }).toEqual(["before the move", "after the move"]);
    await expect.poll(() => lastControlStatus(d), { timeout: 5000 }).toBe(2); // ACKed from the new address

    // Deregistering from the new address ends the observation that was made from the old one.
    expect((await observation.cancel()).code).toBe("2.05");
    await command(d, "waits in the inbox");
    await expect
      .poll(async () => (await layer.request(server, { method: "GET", path: ["mqtt", "inbox"] })).payload.toString(), {
        timeout: 10_000,
      })
      .toBe("waits in the inbox");
    expect(notified).toEqual(["before the move", "after the move"]);
  });
});
