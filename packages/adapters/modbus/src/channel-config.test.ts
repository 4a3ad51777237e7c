import { describe, expect, it } from "vitest";
import { parseChannelConfig, type ChannelConfig } from "./channel-config.js";

const tag = (over: Record<string, unknown> = {}) => ({
  tagname: "temperature",
  tagaddr: "3!400001",
  tagtype: 25,
  tagarrsz: 0,
  tagattr: "R",
  taglogtime: 0,
  tagupdtime: 1000,
  tagstatus: 0,
  tagsubno: 3,
  deviceID: "boiler-3",
  upperLimit: null,
  lowerLimit: null,
  ...over,
});

const tcp = (device: unknown[], over: Record<string, unknown> = {}) => ({
  chnix: 0,
  chnno: 1,
  chnname: "boiler room",
  chntype: "tcp",
  chndrv: "modbus-tcp",
  tcphost: "10.0.0.20",
  tcpport: 502,
  ttycom: "",
  ttybaud: 9600,
  ttydata: 8,
  ttypari: "none",
  ttystop: 1,
  timeout: 1000,
  retries: 1,
  pollInterval: 1000,
  byteOrder: "ABCD",
  maxGap: 8,
  device,
  ...over,
});

const bytes = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

function parsed(json: unknown): ChannelConfig {
  const r = parseChannelConfig(bytes(json));
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}

function refusal(json: unknown): string {
  const r = parseChannelConfig(bytes(json));
  if (r.ok) throw new Error("accepted");
  return r.reason;
}

describe("parseChannelConfig", () => {
  it("reads the documented example into a TCP channel with one unit and its float tag", () => {
    const config = parsed({ channel: [tcp([tag()])] });
    expect(config.dropped).toEqual([]);
    const [ch] = config.channels;
    expect(ch).toMatchObject({
      index: 0,
      name: "boiler room",
      link: { kind: "tcp", host: "10.0.0.20", port: 502 },
      timeoutMs: 1000,
      retries: 1,
      byteOrder: "ABCD",
      maxGap: 8,
    });
    expect(ch!.units).toEqual([
      {
        unit: 3,
        deviceId: "boiler-3",
        intervalMs: 1000,
        tags: [
          {
            name: "temperature",
            deviceId: "boiler-3",
            unit: 3,
            area: "holdingRegister",
            offset: 0,
            count: 2,
            pointDataType: 25,
            layout: { kind: "float", registers: 2 },
            access: "R",
            upperLimit: null,
            lowerLimit: null,
            intervalMs: 1000,
          },
        ],
      },
    ]);
  });

  it("reads an RTU channel's serial settings and defaults the ones left unset", () => {
    const rtu = { chntype: "rtu", chndrv: "modbus-rtu", ttycom: "/dev/ttyUSB0", ttypari: "even", device: [] };
    expect(parsed({ channel: [rtu] }).channels[0]).toMatchObject({
      link: { kind: "rtu", path: "/dev/ttyUSB0", baudRate: 9600, dataBits: 8, parity: "even", stopBits: 1 },
      timeoutMs: 1000,
      retries: 1,
      byteOrder: "ABCD",
      maxGap: 8,
      units: [],
    });
  });

  it("groups tags by unit, takes a unit's shortest tagupdtime and the channel's pollInterval for 0", () => {
    const config = parsed({
      channel: [
        tcp(
          [
            tag({ tagname: "a", tagupdtime: 0 }),
            tag({ tagname: "b", tagaddr: "3!000005", tagtype: 23, tagupdtime: 250 }),
            tag({
              tagname: "c",
              tagaddr: "7!300010",
              tagsubno: 7,
              deviceID: "pump-7",
              tagtype: 16,
              tagarrsz: 4,
              tagupdtime: null,
            }),
          ],
          { pollInterval: 2000 },
        ),
      ],
    });
    const units = config.channels[0]!.units;
    expect(units.map((u) => [u.unit, u.deviceId, u.intervalMs, u.tags.map((t) => t.name)])).toEqual([
      [3, "boiler-3", 250, ["a", "b"]],
      [7, "pump-7", 2000, ["c"]],
    ]);
    expect(units[0]!.tags[1]).toMatchObject({ area: "coil", layout: { kind: "coil" }, count: 1 });
    expect(units[1]!.tags[0]).toMatchObject({ area: "inputRegister", offset: 9, count: 2 });
  });

  it("drops bad device entries with their reasons and keeps the good ones", () => {
    const config = parsed({
      channel: [
        tcp([
          tag({ tagname: "ok" }),
          tag({ tagname: "addr", tagaddr: "3!200001" }),
          tag({ tagname: "type", tagaddr: "3!000001", tagtype: 25 }),
          tag({ tagname: "attr", tagattr: "X" }),
          tag({ tagname: "subno", tagsubno: 4 }),
          tag({ tagname: "limit", upperLimit: "high" }),
          tag({ tagname: "fast", tagupdtime: 5 }),
          tag({ tagname: "ok" }),
          tag({ tagname: "other", deviceID: "intruder" }),
          tag({ tagname: "moved", tagaddr: "4!400001", tagsubno: 4 }),
          "not an object",
        ]),
      ],
    });
    expect(config.channels[0]!.units[0]!.tags.map((t) => t.name)).toEqual(["ok"]);
    expect(config.dropped.map((d) => [d.tagname, d.reason])).toEqual([
      ["addr", expect.stringContaining("area digit must be 0, 1, 3 or 4")],
      ["type", expect.stringContaining("only pointDataType 19 and 23 fit")],
      ["attr", 'tagattr "X" must be one of R, W, RW'],
      ["subno", "tagsubno 4 is not the unit of tagaddr 3!400001"],
      ["limit", "upperLimit must be a number or null"],
      ["fast", "tagupdtime 5 must be 0 (the channel's) or at least 10 ms"],
      ["", "a device entry must be an object"],
      ["ok", "tagname ok is repeated for device boiler-3"],
      ["other", "unit 3 belongs to device boiler-3"],
      ["moved", "device boiler-3 is unit 3"],
    ]);
    expect(config.dropped[0]).toMatchObject({ channel: 0, deviceId: "boiler-3" });
  });

  it("drops units a serial line cannot address and a device already polled on another channel", () => {
    const rtu = { chntype: "rtu", ttycom: "/dev/ttyS0", device: [tag({ tagaddr: "0!400001", tagsubno: 0 })] };
    const second = tcp([tag({ tagaddr: "9!400001", tagsubno: 9 })]);
    const config = parsed({ channel: [rtu, tcp([tag()]), second] });
    expect(config.channels.map((c) => c.units.length)).toEqual([0, 1, 0]);
    expect(config.dropped.map((d) => [d.channel, d.reason])).toEqual([
      [0, "unit 0 cannot answer on a serial line: use 1 to 247"],
      [2, "device boiler-3 is already polled on channel 1"],
    ]);
  });

  it("refuses the whole configuration when a channel is invalid, naming the channel and the setting", () => {
    expect(refusal({ channel: [tcp([]), tcp([], { tcphost: "" })] })).toBe("channel 1: tcphost is missing");
    expect(refusal({ channel: [tcp([], { chntype: "udp" })] })).toBe(
      'channel 0: chntype "udp" must be one of tcp, rtu',
    );
    expect(refusal({ channel: [tcp([], { chndrv: "modbus-rtu" })] })).toBe(
      "channel 0: chndrv modbus-rtu does not match chntype",
    );
    expect(refusal({ channel: [tcp([], { tcpport: 70000 })] })).toContain("tcpport 70000 must be");
    expect(refusal({ channel: [tcp([], { byteOrder: "ABDC" })] })).toContain("byteOrder");
    expect(refusal({ channel: [tcp([], { timeout: 0 })] })).toContain("timeout 0 must be");
    expect(refusal({ channel: [tcp([], { maxGap: 126 })] })).toContain("maxGap 126 must be");
    expect(refusal({ channel: [{ chntype: "rtu", ttycom: "/dev/ttyS0", ttydata: 6, device: [] }] })).toContain(
      "ttydata 6",
    );
    expect(refusal({ channel: [tcp([], { device: {} })] })).toBe("channel 0: device must be an array");
    expect(refusal({ channel: ["x"] })).toBe("channel 0: must be an object");
  });

  it("refuses payloads that are not a JSON object with a channel array", () => {
    expect(refusal({ channels: [] })).toBe('the configuration must be an object with a "channel" array');
    expect(parseChannelConfig(new TextEncoder().encode("{")).ok).toBe(false);
    expect(parseChannelConfig(new Uint8Array([0xff])).ok).toBe(false);
  });

  it("accepts an empty channel list (a gateway without Modbus devices)", () => {
    expect(parsed({ channel: [] })).toEqual({ channels: [], dropped: [] });
  });
});
