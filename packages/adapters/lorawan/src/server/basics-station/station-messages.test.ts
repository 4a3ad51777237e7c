import { describe, expect, test } from "vitest";
import { REGIONS } from "../../codec/region.js";
import { stationFrameFields } from "../../sim/basics-station-frames.js";
import { dataUp, joinRequest } from "../test-kit.js";
import { routerConfig } from "./router-config.js";
import { formatEui, gpsMicros, parseEui, parseStationJson, stringifyStation } from "./station-json.js";
import { buildDnmsg } from "./station-link.js";
import { readStationMessage } from "./station-messages.js";
import type { DownlinkRequest } from "../gateway-link.js";

const v = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(r.reason);
  return r.value;
};
const upinfo = { rctx: 3n, xtime: (0x5an << 56n) | 123_456_789n, gpstime: 0n, rssi: -70, snr: 5.5 };
const asMessage = (fields: object) =>
  v(parseStationJson(stringifyStation({ ...fields, DR: 5, Freq: 868_300_000, upinfo })));

describe("station JSON", () => {
  test("keeps 64-bit xtime, rctx and diid exact both ways", () => {
    const text = stringifyStation({ msgtype: "dnmsg", xtime: upinfo.xtime, diid: 2n ** 63n - 1n });
    expect(text).toContain(`"xtime":${upinfo.xtime}`);
    const back = v(parseStationJson(text));
    expect(back.xtime).toBe(upinfo.xtime);
    expect(back.diid).toBe(2n ** 63n - 1n);
  });

  test("reads exact values when a 64-bit key appears twice, and leaves fractions and strings alone", () => {
    const big = (1n << 62n) + 1n;
    const twice = v(parseStationJson(`{"msgtype":"x","xtime":${big},"upinfo":{"xtime":${big + 1n}},"txtime":1.5}`));
    expect(twice.xtime).toBe(big);
    expect((twice.upinfo as { xtime: bigint }).xtime).toBe(big + 1n);
    expect(twice.txtime).toBe(1.5);
    const quoted = v(parseStationJson(`{"msgtype":"x","note":"\\"rctx\\":5","rctx":${big}}`));
    expect(quoted.rctx).toBe(big);
  });

  test("reads an EUI in dashed, plain, ID6 and integer form", () => {
    expect(v(parseEui("b8-27-eb-ff-fe-00-00-01"))).toBe("B827EBFFFE000001");
    expect(v(parseEui("B827EBFFFE000001"))).toBe("B827EBFFFE000001");
    expect(v(parseEui("b827:ebff:fe00:1"))).toBe("B827EBFFFE000001");
    expect(v(parseEui("::1"))).toBe("0000000000000001");
    expect(v(parseEui("1::"))).toBe("0001000000000000");
    expect(v(parseEui(0x0102n))).toBe("0000000000000102");
    expect(parseEui("1::2::3").ok).toBe(false);
    expect(parseEui("xyz").ok).toBe(false);
    expect(formatEui("B827EBFFFE000001")).toBe("B8-27-EB-FF-FE-00-00-01");
  });

  test("counts GPS time from 1980-01-06 with the leap seconds", () => {
    expect(gpsMicros(Date.UTC(1980, 0, 6), 0)).toBe(0n);
    expect(gpsMicros(Date.UTC(1980, 0, 7), 18)).toBe((86_400n + 18n) * 1_000_000n);
  });

  test("refuses text that is not a JSON object with a msgtype", () => {
    expect(parseStationJson("{ nope").ok).toBe(false);
    expect(parseStationJson("[1]").ok).toBe(false);
    expect(parseStationJson('{"a":1}').ok).toBe(false);
  });
});

describe("station uplinks", () => {
  test("a jreq rebuilds the JoinRequest byte for byte, with the radio metadata in packet-forwarder terms", () => {
    const phy = joinRequest("70b3d57ed0000000", "70b3d57ed0000b01", 0x1234);
    const m = v(readStationMessage(asMessage(stationFrameFields(phy)), REGIONS.EU868));
    if (m.msgtype !== "uplink") throw new Error(m.msgtype);
    expect(m.kind).toBe("jreq");
    expect(m.phyPayload.equals(phy)).toBe(true);
    expect(m.rx).toMatchObject({ freq: 868.3, datr: "SF7BW125", modu: "LORA", rssi: -70, lsnr: 5.5, size: 23 });
    expect(m.upinfo).toEqual({ xtime: upinfo.xtime, rctx: 3n, gpstime: 0n });
  });

  test.each([
    ["with FPort and FOpts", dataUp("26011bda", 70_000, { fPort: 5, fOpts: Buffer.from([0x02]) })],
    // MHDR, DevAddr, FCtrl (FOptsLen 1), FCnt, one FOpts byte, MIC: no FPort.
    ["with FOpts only", Buffer.from("40da1b0126010100020a0b0c0d", "hex")],
  ])("a updf rebuilds the data frame %s", (_name, phy) => {
    const fields = stationFrameFields(phy);
    expect(fields.msgtype).toBe("updf");
    const m = v(readStationMessage(asMessage(fields), REGIONS.EU868));
    expect(m.msgtype === "uplink" && m.phyPayload.equals(phy)).toBe(true);
  });

  test("a propdf passes the whole frame; unknown message types are ignored", () => {
    const m = v(readStationMessage(asMessage({ msgtype: "propdf", FRMPayload: "e0010203" }), REGIONS.EU868));
    expect(m.msgtype === "uplink" && m.phyPayload.toString("hex")).toBe("e0010203");
    expect(v(readStationMessage({ msgtype: "rmtsh" }, REGIONS.EU868))).toEqual({ msgtype: "other", type: "rmtsh" });
  });

  test.each([
    ["no upinfo", { msgtype: "propdf", FRMPayload: "e0", DR: 5, Freq: 868_100_000 }, /upinfo/],
    ["a DR the region lacks", { msgtype: "propdf", FRMPayload: "e0", DR: 9, Freq: 868_100_000, upinfo }, /DR9/],
    [
      "FOpts longer than FOptsLen",
      {
        msgtype: "updf",
        MHdr: 64,
        DevAddr: 1,
        FCtrl: 0,
        FCnt: 1,
        FOpts: "02",
        FPort: -1,
        FRMPayload: "",
        MIC: 1,
        DR: 5,
        Freq: 1,
        upinfo,
      },
      /FOptsLen/,
    ],
    [
      "a jreq without DevEui",
      { msgtype: "jreq", MHdr: 0, JoinEui: "00-00-00-00-00-00-00-01", DevNonce: 1, MIC: 1 },
      /DevEui/,
    ],
    ["a dntxed without diid", { msgtype: "dntxed" }, /diid/],
  ])("refuses %s", (_name, msg, reason) => {
    const r = readStationMessage(v(parseStationJson(stringifyStation(msg))), REGIONS.EU868);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });
});

describe("dnmsg", () => {
  const rx = {
    tmst: 0,
    freq: 868.3,
    modu: "LORA" as const,
    datr: "SF7BW125",
    rssi: -70,
    size: 0,
    data: Buffer.alloc(0),
  };
  const tx = (freq: number, datr: string) => ({
    freq,
    rfch: 0,
    powe: 14,
    modu: "LORA" as const,
    datr,
    data: Buffer.from("600102030400", "hex"),
  });
  const req = (over: Partial<DownlinkRequest>): DownlinkRequest => ({
    region: REGIONS.EU868,
    copy: { gatewayEui: "g", rx, station: upinfo },
    window: "rx1",
    rx1DelayS: 1,
    tx: tx(868.3, "SF7BW125"),
    ...over,
  });

  test("class A RX1 carries the uplink's xtime and rctx, RX1 and RX2 parameters", () => {
    const m = v(buildDnmsg(req({ fallback: tx(869.525, "SF12BW125"), devEui: "70B3D57ED0000B01" }), 7n));
    expect(m).toMatchObject({
      dC: 0,
      diid: 7n,
      RxDelay: 1,
      RX1DR: 5,
      RX1Freq: 868_300_000,
      RX2DR: 0,
      RX2Freq: 869_525_000,
    });
    expect(m).toMatchObject({ xtime: upinfo.xtime, rctx: 3n, DevEui: "70-B3-D5-7E-D0-00-0B-01", pdu: "600102030400" });
  });

  test("class A RX2 has only the RX2 parameters; an ABP device's DevEui comes from its DevAddr", () => {
    const m = v(buildDnmsg(req({ window: "rx2", tx: tx(869.525, "SF12BW125") }), 1n));
    expect(m).toMatchObject({ RX2DR: 0, RX2Freq: 869_525_000, DevEui: "00-00-00-00-04-03-02-01" });
    expect(m.RX1DR).toBeUndefined();
  });

  test("class C is dC 2 without xtime; class A without a station upinfo is refused", () => {
    const c = v(buildDnmsg(req({ window: "immediate", tx: tx(869.525, "SF12BW125") }), 1n));
    expect(c).toMatchObject({ dC: 2, RX2DR: 0, RX2Freq: 869_525_000, rctx: 3n });
    expect(c.xtime).toBeUndefined();
    expect(buildDnmsg(req({ copy: { gatewayEui: "g", rx } }), 1n).ok).toBe(false);
  });
});

describe("router_config", () => {
  test.each(Object.values(REGIONS).map((r) => [r.name, r] as const))(
    "%s: 16 DRs and channels each radio can reach",
    (_n, region) => {
      const rc = routerConfig(region, "000013");
      expect(rc).toMatchObject({ region: region.name, NetID: [0x13], freq_range: [...region.band] });
      expect(rc.DRs).toHaveLength(16);
      const conf = (
        rc.sx1301_conf as Record<string, { enable: boolean; radio?: number; if?: number; freq?: number }>[]
      )[0]!;
      const heard = Object.entries(conf)
        .filter(([k, c]) => k.startsWith("chan_") && c.enable)
        .map(([, c]) => conf[`radio_${c.radio}`]!.freq! + c.if!);
      for (const hz of region.gatewayChannels.slice(0, 8)) expect(heard).toContain(hz);
      for (const [, c] of Object.entries(conf))
        if (c.if !== undefined) expect(Math.abs(c.if)).toBeLessThanOrEqual(400_000);
    },
  );
});
