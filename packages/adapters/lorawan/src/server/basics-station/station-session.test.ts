import { EventEmitter } from "node:events";
import pino from "pino";
import type { Lease } from "@iot/adapter-core";
import type { WebSocket } from "ws";
import { describe, expect, test } from "vitest";
import { REGIONS } from "../../codec/region.js";
import { stationFrameFields } from "../../sim/basics-station-frames.js";
import type { GatewayLink } from "../gateway-link.js";
import { newStats, type Copy } from "../server-context.js";
import { joinRequest } from "../test-kit.js";
import { parseStationJson, stringifyStation } from "./station-json.js";
import { StationSession } from "./station-session.js";

/** An in-memory WebSocket: what the session sends is kept, `close` records its code. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  sent: Record<string, unknown>[] = [];
  closedWith?: { code: number; reason: string };
  send(text: string, cb?: (err?: Error) => void) {
    const m = parseStationJson(text);
    if (m.ok) this.sent.push(m.value);
    cb?.();
  }
  close(code: number, reason: string) {
    this.closedWith = { code, reason };
    this.readyState = 3;
    this.emit("close");
  }
  in(message: object | string, isBinary = false) {
    this.emit("message", Buffer.from(typeof message === "string" ? message : stringifyStation(message)), isBinary);
  }
}

function session() {
  const ws = new FakeSocket();
  const heard: { phy: Buffer; copy: Copy }[] = [];
  const links = new Map<string, GatewayLink>();
  const stats = newStats();
  const lease = { onClose: () => {}, touch: () => {} } as unknown as Lease;
  const server = {
    stats,
    hear: (phy: Buffer, copy: Copy) => (heard.push({ phy, copy }), true),
    gateways: {
      setStationLink: (eui: string, l: GatewayLink | undefined) => (l ? links.set(eui, l) : links.delete(eui)),
      stationLink: (eui: string) => links.get(eui),
    },
  } as never;
  let diid = 0n;
  new StationSession(
    { server, log: pino({ level: "silent" }), region: REGIONS.EU868, netId: "000013", nextDiid: () => ++diid },
    ws as unknown as WebSocket,
    "b827ebfffe000001",
    lease,
  );
  return { ws, heard, links, stats };
}

const upinfo = { rctx: 0n, xtime: 1n << 60n, gpstime: 0n, rssi: -60, snr: 7 };

describe("a station's data connection", () => {
  test("answers version with router_config and takes uplinks only after it", () => {
    const s = session();
    s.ws.in({ msgtype: "updf" });
    expect(s.ws.closedWith?.code).toBe(1007);
    const t = session();
    t.ws.in({ msgtype: "version", station: "2.0.6", protocol: 2 });
    expect(t.ws.sent[0]).toMatchObject({ msgtype: "router_config", region: "EU868" });
    const phy = joinRequest("70b3d57ed0000000", "70b3d57ed0000b01", 9);
    t.ws.in({ ...stationFrameFields(phy), DR: 5, Freq: 868_100_000, upinfo });
    expect(t.heard).toHaveLength(1);
    expect(t.heard[0]!.phy.equals(phy)).toBe(true);
    expect(t.heard[0]!.copy).toMatchObject({ gatewayEui: "b827ebfffe000001", station: { xtime: 1n << 60n } });
  });

  test("counts dntxed, answers timesync with txtime and GPS time", () => {
    const s = session();
    s.ws.in({ msgtype: "dntxed", diid: 4n, DevEui: "00-00-00-00-00-00-00-01", xtime: 5n });
    expect(s.stats.txConfirmed).toBe(1);
    s.ws.in({ msgtype: "timesync", txtime: 123_456_789_012n });
    expect(s.ws.sent[0]).toMatchObject({ msgtype: "timesync", txtime: 123_456_789_012n });
    expect(typeof s.ws.sent[0]!.gpstime).toBe("bigint");
  });

  test("is the gateway's downlink link until it closes", () => {
    const s = session();
    expect(s.links.get("b827ebfffe000001")?.protocol).toBe("basics-station");
    s.ws.in("not json");
    expect(s.ws.closedWith?.code).toBe(1007);
    expect(s.stats.malformed).toBe(1);
    expect(s.links.size).toBe(0);
  });

  test("closes on a binary record", () => {
    const s = session();
    s.ws.in("x", true);
    expect(s.ws.closedWith?.code).toBe(1003);
  });
});
