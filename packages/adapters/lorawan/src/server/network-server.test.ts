import { quietFor } from "@iot/config/testing";
import { describe, expect, test } from "vitest";
import { decodeJoinAccept, deriveSessionKeys } from "../codec/join.js";
import { toHex } from "../codec/hex.js";
import {
  APP,
  APP_KEY,
  dataUp,
  GW1,
  GW2,
  GW3,
  gatewayDevice,
  Harness,
  joinRequest,
  loraDevice,
  NWK,
  portOf,
  readDownlink,
} from "./test-kit.js";

const ABP_ADDR = "26011bda";
const abp = (fcntCheck = 1, fcntUp = 0) =>
  loraDevice(10, {
    activation: "abp",
    fcntCheck,
    session: { devAddr: ABP_ADDR.toUpperCase(), nwkSKey: NWK, appSKey: APP, fcntUp, fcntDown: 0 },
  });
const otaa = (usedDevNonces: number[] = []) =>
  loraDevice(20, {
    activation: "otaa",
    devEui: "0004A30B001C0530",
    appEui: "70B3D57ED0000001",
    appKey: APP_KEY,
    canJoin: true,
    usedDevNonces,
  });
const gateways = [gatewayDevice(1, GW1), gatewayDevice(2, GW2), gatewayDevice(3, GW3)];

describe("gateways", () => {
  test("acknowledges PUSH_DATA and PULL_DATA with the same token, and a known gateway goes online", async () => {
    const h = new Harness(gateways);
    h.pull(GW1);
    expect(h.sent[0]).toMatchObject({ packet: { type: "PULL_ACK", token: 1 }, port: portOf(GW1) });
    await h.until(() => h.registry.events.some((e) => e.type === "opened"));
    expect(h.registry.events[0]).toMatchObject({ type: "opened", session: { device: { deviceIntId: 1 } } });
    h.push(GW1, dataUp(ABP_ADDR, 0));
    expect(h.sent[1]).toMatchObject({ packet: { type: "PUSH_ACK", token: 2 }, port: portOf(GW1) - 1 });
    h.server.close();
  });

  test("a gateway whose PULL_DATA keepalives stop goes offline", async () => {
    const h = new Harness(gateways, { gatewayTimeoutSeconds: 0.1 });
    h.pull(GW1);
    await h.until(() => h.registry.events.some((e) => e.type === "closed"));
    const closed = h.registry.events.find((e) => e.type === "closed");
    expect(closed).toMatchObject({ reason: "PULL_DATA keepalives stopped", session: { device: { deviceIntId: 1 } } });
    expect(h.server.gateways.pullPath(GW1)).toBeUndefined();
    h.server.close();
  });

  test("an unknown gateway EUI is ignored: no session, its frames are not read, the registry is asked once", async () => {
    const h = new Harness([abp()]);
    h.pull("0102030405060708");
    h.push("0102030405060708", dataUp(ABP_ADDR, 0));
    await h.until(() => h.registry.authAttempts.length === 1);
    await h.handled();
    h.pull("0102030405060708");
    await h.handled();
    expect(h.registry.events).toEqual([]);
    expect(h.registry.uplinks).toEqual([]);
    expect(h.registry.authAttempts.length).toBe(1);
    h.server.close();
  });

  test("a stat report is kept as an event of the gateway", async () => {
    const h = new Harness(gateways);
    h.pull(GW2);
    const { encodeSemtechPacket } = await import("../codec/semtech-udp.js");
    const d = encodeSemtechPacket({
      type: "PUSH_DATA",
      version: 2,
      token: 9,
      gatewayEui: GW2,
      rxpk: [],
      ignored: [],
      stat: { time: "2026-11-23 01:00:00 GMT", rxnb: 3, rxok: 2, ackr: 100, dwnb: 1, txnb: 1 },
    });
    h.datagram(d.ok ? d.value : Buffer.alloc(0));
    await h.until(() => h.registry.uplinks.length === 1);
    expect(h.registry.uplinks[0]).toMatchObject({ deviceIntId: 2, topic: "stat" });
    expect(JSON.parse(Buffer.from(h.registry.uplinks[0]!.payload).toString())).toMatchObject({ rxnb: 3, ackr: 100 });
    h.server.close();
  });

  test("malformed datagrams are counted and dropped, and the server keeps serving", async () => {
    const h = new Harness(gateways);
    for (const bad of [Buffer.alloc(0), Buffer.from([9, 0, 0, 0]), Buffer.from([2, 0, 1, 0, 1, 2]), Buffer.from("{x")])
      h.datagram(bad);
    h.pull(GW1);
    expect(h.server.stats.malformed).toBe(4);
    expect(h.sent.map((s) => s.packet.type)).toEqual(["PULL_ACK"]);
    h.server.close();
  });
});

describe("uplinks", () => {
  test("an ABP uplink is decrypted and stored on up/<FPort> with the radio metadata", async () => {
    const h = new Harness([...gateways, abp()]);
    h.pull(GW1);
    h.push(GW1, dataUp(ABP_ADDR, 0, { fPort: 7, payload: Buffer.from("temp=21") }));
    await h.until(() => h.registry.uplinks.length === 1);
    const u = h.registry.uplinks[0]!;
    expect(u).toMatchObject({ deviceIntId: 10, topic: "up/7" });
    expect(Buffer.from(u.payload).toString()).toBe("temp=21");
    expect(JSON.parse(u.metadata!)).toMatchObject({
      devAddr: ABP_ADDR,
      fCnt: 0,
      fPort: 7,
      frequency: 868.1,
      dataRate: "SF7BW125",
      dr: 5,
      gateways: [{ gatewayEui: GW1, gatewayID: GW1.toUpperCase(), rssi: -60, snr: 7 }],
    });
    h.server.close();
  });

  test("three gateways hearing one frame make one uplink listing all three, answered through the best", async () => {
    const h = new Harness([...gateways, abp()]);
    for (const g of [GW1, GW2, GW3]) h.pull(g);
    const phy = dataUp(ABP_ADDR, 0, { confirmed: true });
    h.push(GW1, phy, { rssi: -90, lsnr: 2 });
    h.push(GW2, phy, { rssi: -70, lsnr: 9 });
    h.push(GW3, phy, { rssi: -50, lsnr: 9 });
    await h.until(() => h.pullResps().length === 1);
    await quietFor(50, "past the 20 ms dedup window: a second uplink would be stored within this");
    expect(h.registry.uplinks.length).toBe(1);
    const meta = JSON.parse(h.registry.uplinks[0]!.metadata!) as { gateways: { gatewayEui: string }[] };
    expect(meta.gateways.map((g) => g.gatewayEui)).toEqual([GW3, GW2, GW1]);
    expect(h.pullResps()[0]!.port).toBe(portOf(GW3));
    expect(h.server.stats.duplicates).toBe(2);
    h.server.close();
  });

  test("a replayed frame is refused; a confirmed uplink is ACKed in RX1 one second after it", async () => {
    const h = new Harness([...gateways, abp()]);
    h.pull(GW1);
    const first = dataUp(ABP_ADDR, 5, { confirmed: true });
    h.push(GW1, first, { tmst: 4_000_000 });
    await h.until(() => h.pullResps().length === 1);
    const resp = h.pullResps()[0]!;
    expect(resp.txpk).toMatchObject({ tmst: 5_000_000, freq: 868.1, datr: "SF7BW125", ipol: true });
    const down = readDownlink(resp.txpk.data);
    expect(down).toMatchObject({ micOk: true, mType: "Unconfirmed Data Down", ack: true, fCnt: 0 });
    h.push(GW1, dataUp(ABP_ADDR, 6));
    await h.until(() => h.registry.uplinks.length === 2);
    h.push(GW1, dataUp(ABP_ADDR, 3, { payload: Buffer.from("old") }));
    await h.until(() => h.server.stats.replays === 1);
    expect(h.registry.uplinks.length).toBe(2);
    h.server.close();
  });

  test("a confirmed uplink sent again after its window is ACKed again and not stored twice", async () => {
    const h = new Harness([...gateways, abp()]);
    h.pull(GW1);
    const frame = dataUp(ABP_ADDR, 0, { confirmed: true });
    h.push(GW1, frame);
    await h.until(() => h.pullResps().length === 1);
    await quietFor(150, "past the 100 ms the frame is remembered for deduplication");
    h.push(GW1, frame);
    await h.until(() => h.pullResps().length === 2);
    expect(readDownlink(h.pullResps()[1]!.txpk.data)).toMatchObject({ micOk: true, ack: true, fCnt: 1 });
    expect(h.registry.uplinks.length).toBe(1);
    h.server.close();
  });

  test("a confirmed uplink the registry has not stored gets no ACK; its retransmission is ACKed once stored", async () => {
    const h = new Harness([...gateways, abp()]);
    h.registry.autoAck = false;
    h.pull(GW1);
    const frame = dataUp(ABP_ADDR, 0, { confirmed: true });
    h.push(GW1, frame);
    await h.until(() => h.registry.uplinks.length === 1);
    await quietFor(2_100, "past RX2: nothing to say but the ACK, so nothing is sent"); // RX2 opens 2 s after
    expect(h.pullResps()).toEqual([]);
    expect(h.registry.loraCounterReports.flat().every((c) => c.fcntUp === 0)).toBe(true); // not past the unstored
    h.registry.ackAll();
    await h.until(() => h.registry.loraCounterReports.flat().some((c) => c.fcntUp === 1)); // reported at once
    h.push(GW1, frame); // the device retransmits
    await h.until(() => h.pullResps().length === 1);
    expect(readDownlink(h.pullResps()[0]!.txpk.data)).toMatchObject({ micOk: true, ack: true });
    expect(h.registry.uplinks.length).toBe(1);
    h.server.close();
  });

  test("an uplink frame is named by DevAddr, FCnt and MIC under the strict counter policies only", async () => {
    const ids: Array<string | undefined> = [];
    for (const fcntCheck of [0, 1, 2, 3]) {
      const h = new Harness([...gateways, abp(fcntCheck)]);
      h.pull(GW1);
      const frame = dataUp(ABP_ADDR, 0, { payload: Buffer.from("x") });
      h.push(GW1, frame);
      await h.until(() => h.registry.uplinks.length === 1);
      ids.push((JSON.parse(h.registry.uplinks[0]!.metadata!) as { frameId?: string }).frameId);
      h.server.close();
    }
    expect(ids.slice(2)).toEqual([undefined, undefined]);
    expect(ids[0]).toMatch(new RegExp(`^${ABP_ADDR}:0:[0-9a-f]{8}$`));
    expect(ids[1]).toBe(ids[0]);
  });

  test.each([
    [0, 100, 101, true, "strict 16-bit: the next counter is accepted"],
    [0, 100, 50, false, "strict 16-bit: an older counter is a replay"],
    [1, 0x1fff0, 0x20005, true, "strict 32-bit: the upper 16 bits are inferred across the wrap"],
    [1, 0x20000, 0x1fff0, false, "strict 32-bit: an older counter is a replay"],
    [2, 100, 2, true, "reset on zero: a device that restarted near 0 is accepted"],
    [3, 100, 1, true, "disabled: any counter is accepted"],
  ])("fcntCheck %i (next %i, frame %i): accepted %s — %s", async (mode, next, fcnt, accepted) => {
    const h = new Harness([...gateways, abp(mode, next)]);
    h.pull(GW1);
    h.push(GW1, dataUp(ABP_ADDR, fcnt));
    await h.until(() => h.registry.uplinks.length + h.server.stats.replays > 0);
    expect(h.registry.uplinks.length).toBe(accepted ? 1 : 0);
    expect(h.server.stats.replays).toBe(accepted ? 0 : 1);
    h.server.close();
  });

  test("counters are reported to the registry in batches", async () => {
    const h = new Harness([...gateways, abp()]);
    h.pull(GW1);
    h.push(GW1, dataUp(ABP_ADDR, 0));
    h.push(GW1, dataUp(ABP_ADDR, 1));
    await h.until(() => h.registry.loraCounterReports.flat().some((c) => c.fcntUp === 2));
    expect(h.registry.loraCounterReports.flat().at(-1)).toEqual({ deviceIntId: 10, fcntUp: 2, fcntDown: 0 });
    h.server.close();
  });
});

describe("OTAA join", () => {
  test("a valid JoinRequest is activated with the registry and answered by a JoinAccept in RX1 (5 s)", async () => {
    const h = new Harness([...gateways, otaa()]);
    h.pull(GW1);
    h.push(GW1, joinRequest("70b3d57ed0000001", "0004a30b001c0530", 0x1234), { tmst: 10_000_000 });
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!.txpk;
    expect(tx).toMatchObject({ tmst: 15_000_000, freq: 868.1 });
    const accept = decodeJoinAccept(tx.data, Buffer.from(APP_KEY, "hex"));
    if (!accept.ok) throw new Error(accept.reason);
    expect(accept.value.netId).toBe("000013");
    expect(accept.value.devAddr.startsWith("26") || accept.value.devAddr.startsWith("27")).toBe(true);
    expect(accept.value.cfList?.length).toBe(16);
    expect(h.registry.loraActivations).toEqual([{ deviceIntId: 20, devNonce: 0x1234, devAddr: accept.value.devAddr }]);
    const keys = deriveSessionKeys(Buffer.from(APP_KEY, "hex"), { ...accept.value, devNonce: 0x1234 });
    if (!keys.ok) throw new Error(keys.reason);
    const session = { nwk: toHex(keys.value.nwkSKey), app: toHex(keys.value.appSKey) };
    h.push(GW1, dataUp(accept.value.devAddr, 0, { fPort: 2, payload: Buffer.from("joined") }, session));
    await h.until(() => h.registry.uplinks.length === 1);
    expect(h.registry.uplinks[0]).toMatchObject({ deviceIntId: 20, topic: "up/2" });
    expect(Buffer.from(h.registry.uplinks[0]!.payload).toString()).toBe("joined");
    h.server.close();
  });

  test.each([
    ["a reused DevNonce", "70b3d57ed0000001", 7, APP_KEY],
    ["another AppEUI", "70b3d57ed0000002", 8, APP_KEY],
    ["a MIC under another AppKey", "70b3d57ed0000001", 9, "00".repeat(16)],
  ])("a JoinRequest with %s is refused", async (_what, appEui, nonce, key) => {
    const h = new Harness([...gateways, otaa([7])]);
    h.pull(GW1);
    h.push(GW1, joinRequest(appEui, "0004a30b001c0530", nonce, key));
    await h.until(() => h.server.stats.joinsRefused === 1);
    expect(h.pullResps()).toEqual([]);
    expect(h.registry.loraActivations).toEqual([]);
    h.server.close();
  });
});
