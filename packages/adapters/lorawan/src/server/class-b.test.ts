import { createCipheriv } from "node:crypto";
import { describe, expect, test } from "vitest";
import { REGIONS } from "../codec/region.js";
import { decodeDownlinkMacCommands, encodeUplinkMacCommands } from "../mac/mac-commands.js";
import { routerConfig } from "./basics-station/router-config.js";
import { buildDnmsg } from "./basics-station/station-link.js";
import { pingSlotTx } from "./class-b.js";
import { APP, dataUp, GW1, GW2, gatewayDevice, Harness, loraDevice, NWK, portOf, readDownlink } from "./test-kit.js";

const ADDR = "26011bdc";
const MARGIN_MS = 150;

/** GPS time in ms now, computed here from the GPS epoch (1980-01-06) and the 18 leap seconds. */
const gpsNow = () => Date.now() - Date.UTC(1980, 0, 6) + 18_000;

/**
 * The specification's ping slots (LoRaWAN 1.0.4 §13.2, 1.1 §13.2), written out here: Rand = AES-128 under a zero key
 * of BeaconTime (s, LE) | DevAddr (LE) | zeros; pingOffset = (Rand[0] + 256 × Rand[1]) mod pingPeriod;
 * slot N opens at BeaconTime + 2.120 s + (pingOffset + N × pingPeriod) × 30 ms; pingPeriod = 2^(5 + periodicity).
 */
function specSlotAtOrAfter(gpsMs: number, devAddr: string, periodicity: number): number {
  const period = 2 ** (5 + periodicity);
  for (let beacon = Math.floor(gpsMs / 128_000) * 128_000; ; beacon += 128_000) {
    const block = Buffer.alloc(16);
    block.writeUInt32LE(beacon / 1000, 0);
    block.writeUInt32LE(parseInt(devAddr, 16), 4);
    const rand = createCipheriv("aes-128-ecb", Buffer.alloc(16), null).setAutoPadding(false).update(block);
    const offset = (rand[0]! + 256 * rand[1]!) % period;
    for (let n = 0; n < 4096 / period; n++) {
      const t = beacon + 2120 + (offset + n * period) * 30;
      if (t >= gpsMs) return t;
    }
  }
}

const device = (extra: Record<string, unknown> = {}) =>
  loraDevice(40, {
    activation: "abp",
    classB: true,
    session: { devAddr: ADDR.toUpperCase(), nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0 },
    ...extra,
  });
const setup = (extra: Record<string, unknown> = {}) =>
  new Harness([gatewayDevice(1, GW1), gatewayDevice(2, GW2), device(extra)], { scheduleMarginMs: MARGIN_MS });
const fOpts = (...c: Parameters<typeof encodeUplinkMacCommands>[0]) => {
  const r = encodeUplinkMacCommands(c);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
};
const command = (h: Harness, id: number, payload: string) =>
  h.registry.pushDownlink({ deviceIntId: 40, id, topic: "dn/5", payload: Buffer.from(payload) });

describe("class B downlinks", () => {
  test("PingSlotInfoReq is answered, and a command goes out at the next ping slot of that periodicity (GPS time)", async () => {
    const h = setup();
    h.pull(GW1);
    const info = fOpts({ type: "PingSlotInfoReq", periodicity: 0 });
    h.push(GW1, dataUp(ADDR, 0, { classB: true, fOpts: info }), { tmms: gpsNow() });
    await h.until(() => h.pullResps().length === 1);
    const answer = readDownlink(h.pullResps()[0]!.txpk.data);
    expect(decodeDownlinkMacCommands(answer.fOpts).commands).toEqual([{ type: "PingSlotInfoAns" }]);
    h.txAck(GW1, h.pullResps()[0]!.token);

    const before = gpsNow();
    const settled = command(h, 1, "ping");
    await h.until(() => h.pullResps().length === 2);
    const after = gpsNow();
    const tx = h.pullResps()[1]!;
    h.txAck(GW1, tx.token);
    expect(await settled).toEqual({ status: "SENT" });
    // The first slot at or after now + margin: now is read between `before` and `after`.
    const candidates = [before, after].map((t) => specSlotAtOrAfter(t + MARGIN_MS, ADDR, 0));
    expect(candidates).toContain(tx.txpk.tmms);
    expect(tx.txpk).toMatchObject({ freq: 869.525, datr: "SF9BW125", ipol: true, codr: "4/5" });
    expect(tx.txpk.tmst).toBeUndefined();
    expect(tx.txpk.imme).toBeUndefined();
    expect(readDownlink(tx.txpk.data)).toMatchObject({ micOk: true, fPort: 5, payload: Buffer.from("ping") });
    h.server.close();
  });

  test("two commands take two ping slots, the second after the first", async () => {
    const h = setup({ pingSlotPeriodicity: 1 });
    h.pull(GW1);
    h.push(GW1, dataUp(ADDR, 0, { classB: true }), { tmms: gpsNow() });
    await h.until(() => h.registry.uplinks.length === 1);
    const first = command(h, 1, "one");
    const second = command(h, 2, "two");
    await h.until(() => h.pullResps().length === 1, 5_000);
    h.txAck(GW1, h.pullResps()[0]!.token);
    await h.until(() => h.pullResps().length === 2, 5_000);
    h.txAck(GW1, h.pullResps()[1]!.token);
    expect([await first, await second]).toEqual([{ status: "SENT" }, { status: "SENT" }]);
    const [a, b] = h.pullResps().map((r) => r.txpk.tmms!);
    expect(b).toBe(specSlotAtOrAfter(a! + 30, ADDR, 1));
    h.server.close();
  });

  test("only a gateway that reported GPS time sends at a ping slot, even when another heard the device better", async () => {
    const h = setup({ pingSlotPeriodicity: 0 });
    h.pull(GW1);
    h.pull(GW2);
    const phy = dataUp(ADDR, 0, { classB: true });
    h.push(GW2, phy, { lsnr: 10 });
    h.push(GW1, phy, { lsnr: -5, tmms: gpsNow() });
    await h.until(() => h.registry.uplinks.length === 1);
    const settled = command(h, 1, "via gps");
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!;
    expect(tx.port).toBe(portOf(GW1));
    expect(tx.txpk.tmms).toBeGreaterThan(gpsNow());
    h.txAck(GW1, tx.token);
    expect(await settled).toEqual({ status: "SENT" });
    h.server.close();
  });

  test.each([
    ["only a gateway without GPS time heard it", { classB: true }, false],
    ["its uplink did not set the ClassB bit", { classB: false }, true],
  ])("no ping slot is used when %s: the command waits for the next uplink's RX1", async (_, frame, gps) => {
    const h = setup();
    h.pull(GW2);
    h.push(GW2, dataUp(ADDR, 0, frame), gps ? { tmms: gpsNow() } : {});
    await h.until(() => h.registry.uplinks.length === 1);
    const settled = command(h, 1, "later");
    h.push(GW2, dataUp(ADDR, 1, frame), { tmst: 5_000_000 });
    await h.until(() => h.pullResps().length === 1);
    const tx = h.pullResps()[0]!;
    expect(tx.txpk).toMatchObject({ tmst: 6_000_000 });
    expect(tx.txpk.tmms).toBeUndefined();
    h.txAck(GW2, tx.token);
    expect(await settled).toEqual({ status: "SENT" });
    h.server.close();
  });
});

describe("class B transmissions", () => {
  const eu = REGIONS.EU868;

  test("a Basics Station gets a dnmsg with dC 1 at the slot's gpstime (µs), on the ping-slot DR and frequency", () => {
    const slot = 1_400_000_000_000 + 2120 + 30 * 17;
    const tx = pingSlotTx(eu, ADDR, slot, Buffer.alloc(20, 1));
    if (!tx.ok) throw new Error(tx.reason);
    const upinfo = { xtime: 5n, rctx: 2n, gpstime: 1n };
    const msg = buildDnmsg(
      {
        region: eu,
        copy: { gatewayEui: GW1, rx: {} as never, station: upinfo },
        window: "ping",
        rx1DelayS: 1,
        tx: tx.value,
      },
      9n,
    );
    expect(msg).toMatchObject({
      ok: true,
      value: { msgtype: "dnmsg", dC: 1, gpstime: BigInt(slot) * 1000n, DR: 3, Freq: 869_525_000, rctx: 2n, diid: 9n },
    });
  });

  test("a frame longer than the ping slot's data rate allows is refused", () => {
    expect(pingSlotTx(eu, ADDR, 2120, Buffer.alloc(200))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/bytes/),
    });
  });

  test("an EU868 station is told to send beacons on 869.525 MHz at DR3 (router_config bcning)", () => {
    expect(routerConfig(eu, "000013").bcning).toEqual({ DR: 3, layout: [2, 8, 17], freqs: [869_525_000] });
    expect(routerConfig(REGIONS.US915, "000013").bcning).toBeUndefined();
  });
});
