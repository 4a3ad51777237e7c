import { describe, expect, test } from "vitest";
import { decodeDownlinkMacCommands, encodeUplinkMacCommands } from "../mac/mac-commands.js";
import { downlinkPayload, downlinkTopic } from "./downlinks.js";
import { APP, dataUp, GW1, gatewayDevice, Harness, loraDevice, NWK, readDownlink } from "./test-kit.js";

const ADDR = "26011bdb";
const device = (extra: Record<string, unknown> = {}) =>
  loraDevice(30, {
    activation: "abp",
    session: { devAddr: ADDR.toUpperCase(), nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0 },
    ...extra,
  });
const setup = (extra: Record<string, unknown> = {}, options = {}) =>
  new Harness([gatewayDevice(1, GW1), device(extra)], options);

/** Opens the device's session with one uplink, then queues a command. */
async function withCommand(h: Harness, topic: string, payload = "cmd") {
  h.pull(GW1);
  h.push(GW1, dataUp(ADDR, 0));
  await h.until(() => h.registry.uplinks.length === 1);
  return h.registry.pushDownlink({ deviceIntId: 30, id: 77, topic, payload: Buffer.from(payload) });
}

describe("downlink topics and payloads", () => {
  test("dn/<FPort> is unconfirmed, dn/<FPort>/confirmed confirmed, the default topic FPort 1", () => {
    expect(downlinkTopic("dn/5", "inbox")).toEqual({ ok: true, value: { fPort: 5, confirmed: false } });
    expect(downlinkTopic("dn/223/confirmed", "inbox")).toEqual({ ok: true, value: { fPort: 223, confirmed: true } });
    expect(downlinkTopic("inbox", "inbox")).toEqual({ ok: true, value: { fPort: 1, confirmed: false } });
    expect(downlinkTopic("dn/0", "inbox").ok).toBe(false);
    expect(downlinkTopic("dn/224", "inbox").ok).toBe(false);
    expect(downlinkTopic("cmd/x", "inbox").ok).toBe(false);
  });

  test("a hex: payload is decoded, any other is sent as its bytes", () => {
    expect(downlinkPayload(Buffer.from("hex:01ff"))).toEqual({ ok: true, value: Buffer.from([1, 0xff]) });
    expect(downlinkPayload(Buffer.from("on"))).toEqual({ ok: true, value: Buffer.from("on") });
    expect(downlinkPayload(Buffer.from("hex:0")).ok).toBe(false);
  });
});

describe("class A downlinks", () => {
  test("a command waits for the next uplink, goes out in RX1 with the next FCntDown, and is SENT", async () => {
    const h = setup();
    h.pull(GW1);
    h.push(GW1, dataUp(ADDR, 0));
    await h.until(() => h.registry.uplinks.length === 1);
    // Handed over before the second command below: both wait in the device's queue, in that order.
    const first = h.registry.pushDownlink({ deviceIntId: 30, id: 77, topic: "dn/8", payload: Buffer.from("cmd") });
    // Bounded wait for what must not happen: a class A command is not sent, nor settled, before the next uplink.
    const outcome = await Promise.race([first, new Promise((r) => setTimeout(() => r("waiting"), 50))]);
    expect(outcome).toBe("waiting");
    expect(h.pullResps()).toEqual([]);
    const settled = h.registry.pushDownlink({ deviceIntId: 30, id: 78, topic: "dn/8", payload: Buffer.from("two") });
    h.push(GW1, dataUp(ADDR, 1), { tmst: 7_000_000 });
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!;
    h.txAck(GW1, tx.token);
    expect(tx.txpk.tmst).toBe(8_000_000);
    expect(readDownlink(tx.txpk.data)).toMatchObject({ micOk: true, fPort: 8, fCnt: 0, payload: Buffer.from("cmd") });
    h.push(GW1, dataUp(ADDR, 2));
    await h.until(() => h.pullResps().length === 2);
    h.txAck(GW1, h.pullResps()[1]!.token);
    expect(await settled).toEqual({ status: "SENT" });
    expect(readDownlink(h.pullResps()[1]!.txpk.data)).toMatchObject({ fCnt: 1, payload: Buffer.from("two") });
    h.server.close();
  });

  test("RX2 is used when RX1 can no longer be met", async () => {
    const h = setup({}, { scheduleMarginMs: 990 });
    const settled = withCommand(h, "dn/3");
    await h.until(() => h.registry.uplinks.length === 1);
    h.push(GW1, dataUp(ADDR, 1), { tmst: 1_000_000 });
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!;
    expect(tx.txpk).toMatchObject({ tmst: 3_000_000, freq: 869.525, datr: "SF12BW125" });
    h.txAck(GW1, tx.token);
    expect(await settled).toEqual({ status: "SENT" });
    h.server.close();
  });

  test("a TX_ACK error in RX1 is retried in RX2; errors in both fail the command", async () => {
    const h = setup();
    const settled = withCommand(h, "dn/3");
    await h.until(() => h.registry.uplinks.length === 1);
    h.push(GW1, dataUp(ADDR, 1), { tmst: 1_000_000 });
    await h.until(() => h.pullResps().length === 1);
    h.txAck(GW1, h.pullResps()[0]!.token, "TOO_LATE");
    await h.until(() => h.pullResps().length === 2);
    expect(h.pullResps()[1]!.txpk).toMatchObject({ tmst: 3_000_000, freq: 869.525 });
    h.txAck(GW1, h.pullResps()[1]!.token, "COLLISION_PACKET");
    expect(await settled).toMatchObject({ status: "FAILED", message: expect.stringContaining("COLLISION_PACKET") });
    h.server.close();
  });

  test("a confirmed downlink is DELIVERED when the next uplink ACKs it, FAILED when it does not", async () => {
    const h = setup();
    const first = withCommand(h, "dn/2/confirmed");
    await h.until(() => h.registry.uplinks.length === 1);
    h.push(GW1, dataUp(ADDR, 1));
    await h.until(() => h.pullResps().length === 1);
    expect(readDownlink(h.pullResps()[0]!.txpk.data).mType).toBe("Confirmed Data Down");
    h.txAck(GW1, h.pullResps()[0]!.token);
    await h.handled();
    h.push(GW1, dataUp(ADDR, 2, { ack: true }));
    expect(await first).toEqual({ status: "DELIVERED" });
    const second = h.registry.pushDownlink({
      deviceIntId: 30,
      id: 79,
      topic: "dn/2/confirmed",
      payload: Buffer.from("x"),
    });
    h.push(GW1, dataUp(ADDR, 3));
    await h.until(() => h.pullResps().length === 2);
    h.txAck(GW1, h.pullResps()[1]!.token);
    await h.handled();
    h.push(GW1, dataUp(ADDR, 4));
    expect(await second).toMatchObject({ status: "FAILED" });
    h.server.close();
  });

  test("a command on another topic fails at once", async () => {
    const h = setup();
    expect(await withCommand(h, "cmd/x")).toMatchObject({ status: "FAILED", message: expect.stringContaining("dn/") });
    h.server.close();
  });
});

describe("class C downlinks", () => {
  test("are sent at once on RX2 (imme) through the gateway that heard the device last", async () => {
    const h = setup({ classC: true });
    const settled = withCommand(h, "dn/6", "now");
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!;
    expect(tx.txpk).toMatchObject({ imme: true, freq: 869.525, datr: "SF12BW125" });
    expect(tx.txpk.tmst).toBeUndefined();
    h.txAck(GW1, tx.token);
    expect(await settled).toEqual({ status: "SENT" });
    expect(readDownlink(tx.txpk.data).payload).toEqual(Buffer.from("now"));
    h.server.close();
  });
});

describe("MAC commands", () => {
  const macDown = (phy: Buffer) => decodeDownlinkMacCommands(readDownlink(phy).fOpts).commands;
  const fOpts = (...c: Parameters<typeof encodeUplinkMacCommands>[0]) => {
    const r = encodeUplinkMacCommands(c);
    if (!r.ok) throw new Error(r.reason);
    return r.value;
  };

  test("LinkCheckReq is answered with the margin of the best copy and the number of gateways", async () => {
    const h = setup();
    h.pull(GW1);
    h.push(GW1, dataUp(ADDR, 0, { fOpts: fOpts({ type: "LinkCheckReq" }) }), { lsnr: 5, datr: "SF9BW125" });
    await h.until(() => h.pullResps().length === 1);
    expect(macDown(h.pullResps()[0]!.txpk.data)).toEqual([{ type: "LinkCheckAns", margin: 17, gatewayCount: 1 }]);
    h.server.close();
  });

  test("DevStatusReq goes out on the first uplink; the DevStatusAns is kept as the device's lora/status", async () => {
    const h = setup({}, { devStatusEvery: 100 });
    h.pull(GW1);
    h.push(GW1, dataUp(ADDR, 0));
    await h.until(() => h.pullResps().length === 1);
    expect(macDown(h.pullResps()[0]!.txpk.data)).toEqual([{ type: "DevStatusReq" }]);
    h.push(GW1, dataUp(ADDR, 1, { fOpts: fOpts({ type: "DevStatusAns", battery: 180, margin: 9 }) }));
    await h.until(() => h.registry.uplinks.some((u) => u.topic === "lora/status"));
    const status = h.registry.uplinks.find((u) => u.topic === "lora/status")!;
    expect(JSON.parse(Buffer.from(status.payload).toString())).toEqual({ battery: 180, margin: 9 });
    h.server.close();
  });

  test("ADR asks a device heard with a strong SNR for a faster data rate (LinkADRReq)", async () => {
    const h = setup();
    h.pull(GW1);
    for (let f = 0; f < 20; f++) h.push(GW1, dataUp(ADDR, f, { adr: true }), { datr: "SF12BW125", lsnr: 5 });
    await h.until(() => h.pullResps().length === 1);
    const [req] = macDown(h.pullResps()[0]!.txpk.data);
    expect(req).toMatchObject({ type: "LinkADRReq", dataRate: 5, channelMaskControl: 6 });
    h.server.close();
  });

  test("an unknown MAC command is skipped and the frame still delivered", async () => {
    const h = setup();
    h.pull(GW1);
    h.push(GW1, dataUp(ADDR, 0, { fOpts: Buffer.from([0x7f, 1, 2]) }));
    await h.until(() => h.registry.uplinks.length === 1);
    expect(h.registry.uplinks[0]!.topic).toBe("up/1");
    h.server.close();
  });
});
