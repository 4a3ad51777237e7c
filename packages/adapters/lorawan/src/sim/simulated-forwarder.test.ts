import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { quietFor } from "@iot/config/testing";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { buildDownlink, parseDataFrame } from "../codec/uplink.js";
import {
  acknowledgementOf,
  decodeSemtechPacket,
  encodeSemtechPacket,
  type SemtechPacket,
} from "../codec/semtech-udp.js";
import { hearOnAll, SimulatedForwarder } from "./simulated-forwarder.js";
import { SimulatedLoraDevice } from "./simulated-lora-device.js";

/** A tiny network-server stand-in on 127.0.0.1: ACKs PUSH_DATA/PULL_DATA (unless muted) and records what came. */
class AckServer {
  readonly socket: Socket = createSocket("udp4");
  readonly received: { packet: SemtechPacket; from: RemoteInfo }[] = [];
  mute = false;
  private waiting: (() => void)[] = [];

  async start(): Promise<number> {
    this.socket.on("message", (msg, from) => {
      const decoded = decodeSemtechPacket(msg);
      if (!decoded.ok) return;
      this.received.push({ packet: decoded.value, from });
      const ack = acknowledgementOf(decoded.value);
      if (ack && !this.mute) this.socket.send(ack, from.port, from.address);
      for (const w of this.waiting.splice(0)) w();
    });
    await new Promise<void>((r) => this.socket.bind(0, "127.0.0.1", () => r()));
    return this.socket.address().port;
  }

  /** Resolves once a packet of `type` has been received (at least `count` of them). */
  async waitFor(type: SemtechPacket["type"], count = 1): Promise<SemtechPacket[]> {
    for (;;) {
      const found = this.received.filter((r) => r.packet.type === type).map((r) => r.packet);
      if (found.length >= count) return found;
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }

  sendTo(packet: SemtechPacket, port: number): void {
    const bytes = encodeSemtechPacket(packet);
    if (!bytes.ok) throw new Error(bytes.reason);
    this.socket.send(bytes.value, port, "127.0.0.1");
  }
}

const keys = {
  devAddr: "26011bda",
  nwkSKey: Buffer.from("44024241ed4ce9a68c6a8bc055233fd3", "hex"),
  appSKey: Buffer.from("ec925802ae430ca77fd3dd73cb2cc588", "hex"),
};
const txpkOf = (data: Buffer, tmst: number) => ({
  tmst,
  freq: 868.1,
  rfch: 0,
  powe: 14,
  modu: "LORA" as const,
  datr: "SF7BW125",
  codr: "4/5",
  ipol: true,
  data,
});

let server: AckServer;
let port: number;
const forwarders: SimulatedForwarder[] = [];
const forwarder = (options: Partial<ConstructorParameters<typeof SimulatedForwarder>[0]> = {}) => {
  const f = new SimulatedForwarder({ gatewayEui: "aa555a0000000101", port, ackTimeoutMs: 500, ...options });
  forwarders.push(f);
  return f;
};

beforeEach(async () => {
  server = new AckServer();
  port = await server.start();
});

afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((f) => f.close()));
  server.socket.close();
});

describe("SimulatedForwarder against a UDP server on 127.0.0.1", () => {
  test("start sends a PULL_DATA and resolves on its PULL_ACK; keepalives repeat until stopped", async () => {
    const gw = forwarder({ keepaliveMs: 30 });
    await gw.start();
    const pulls = await server.waitFor("PULL_DATA", 3);
    expect(pulls[0]).toMatchObject({ type: "PULL_DATA", version: 2, gatewayEui: "aa555a0000000101" });
    gw.stopKeepalive();
    await quietFor(60, "a keepalive sent before the stop arrives within this");
    const stopped = server.received.length;
    await quietFor(120, "keepalives every 30 ms would arrive within this");
    expect(server.received.length).toBe(stopped);
  });

  test("a push carries the frame in an rxpk with its radio metadata and resolves on the PUSH_ACK", async () => {
    const gw = forwarder({ version: 1 });
    const device = new SimulatedLoraDevice({
      abp: {
        devAddr: keys.devAddr,
        nwkSKey: "44024241ed4ce9a68c6a8bc055233fd3",
        appSKey: "ec925802ae430ca77fd3dd73cb2cc588",
      },
    });
    const frame = device.uplink({ payload: "t" });
    const rtt = await gw.push({ data: frame, freq: 868.3, datr: "SF9BW125", rssi: -101, lsnr: -4.5 });
    expect(rtt).toBeGreaterThanOrEqual(0);
    const [push] = await server.waitFor("PUSH_DATA");
    if (push?.type !== "PUSH_DATA") throw new Error("no PUSH_DATA");
    expect(push.version).toBe(1);
    expect(push.rxpk[0]).toMatchObject({ freq: 868.3, datr: "SF9BW125", rssi: -101, lsnr: -4.5, stat: 1, data: frame });
    expect(push.rxpk[0]!.tmst).toBeLessThanOrEqual(0xffffffff);
  });

  test("the µs counter wraps at 2^32", async () => {
    const gw = forwarder({ tmstStart: 0xffffffff - 2_000 });
    await quietFor(10, "more than the 2 ms the µs counter has left before it wraps");
    expect(gw.tmst).toBeLessThan(1_000_000);
  });

  test("a push without a PUSH_ACK rejects after the timeout", async () => {
    server.mute = true;
    const gw = forwarder({ ackTimeoutMs: 100 });
    await expect(gw.push({ data: Buffer.from([0x40, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0]) })).rejects.toThrow(
      /no PUSH_ACK/,
    );
  });

  test("stat reports count the frames pushed since the last one", async () => {
    const gw = forwarder();
    await gw.push([{ data: Buffer.alloc(12, 0x40) }, { data: Buffer.alloc(12, 0x40), stat: -1 }]);
    await gw.sendStat({ lati: 46.24, long: 3.25 });
    const pushes = await server.waitFor("PUSH_DATA", 2);
    expect(pushes[1]).toMatchObject({ rxpk: [], stat: { rxnb: 2, rxok: 1, ackr: 100, lati: 46.24, long: 3.25 } });
  });

  test("a PULL_RESP becomes a downlink with frame and timing, TX_ACK NONE, then TOO_LATE when injected", async () => {
    const gw = forwarder();
    await gw.start();
    const phy = buildDownlink({ ...keys, fcntDown: 3, fPort: 2, payload: Buffer.from("go") });
    if (!phy.ok) throw new Error(phy.reason);
    server.sendTo({ type: "PULL_RESP", version: 2, token: 777, txpk: txpkOf(phy.value.phy, 1_000_000) }, gw.localPort);
    const d = await gw.nextDownlink(2_000);
    expect(d).toMatchObject({ token: 777, tmst: 1_000_000, freq: 868.1, datr: "SF7BW125", mType: 3 });
    expect(d.frame).toMatchObject({ devAddr: "26011bda", fCnt16: 3, fPort: 2 });
    expect(d.data).toEqual(phy.value.phy);
    const [ack] = await server.waitFor("TX_ACK");
    expect(ack).toMatchObject({ type: "TX_ACK", token: 777, gatewayEui: "aa555a0000000101", ack: { error: "NONE" } });

    gw.failNextTxAck("TOO_LATE");
    const iterator = gw.downlinks();
    server.sendTo({ type: "PULL_RESP", version: 2, token: 778, txpk: txpkOf(phy.value.phy, 2_000_000) }, gw.localPort);
    const next = await iterator.next();
    expect(next.value).toMatchObject({ token: 778, txAck: { error: "TOO_LATE" } });
    const acks = await server.waitFor("TX_ACK", 2);
    expect(acks[1]).toMatchObject({ token: 778, ack: { error: "TOO_LATE" } });
    expect(value(parseDataFrame(next.value!.data)).fPort).toBe(2);
  });

  test("version 1 takes a PULL_RESP without answering TX_ACK", async () => {
    const gw = forwarder({ version: 1 });
    await gw.start();
    const phy = value(buildDownlink({ ...keys, fcntDown: 0, ack: true })).phy;
    server.sendTo({ type: "PULL_RESP", version: 1, token: 0, txpk: txpkOf(phy, 5) }, gw.localPort);
    const d = await gw.nextDownlink(2_000);
    expect(d).toMatchObject({ token: 0, tmst: 5, frame: { ack: true } });
    expect(d.txAck).toBeUndefined();
    await gw.pull();
    expect(server.received.filter((r) => r.packet.type === "TX_ACK")).toHaveLength(0);
  });

  test("with checkTiming, a txpk whose tmst has passed is answered TOO_LATE; a future one NONE", async () => {
    const gw = forwarder({ checkTiming: true, tmstStart: 10_000_000 });
    await gw.start();
    const phy = value(buildDownlink({ ...keys, fcntDown: 0, ack: true })).phy;
    server.sendTo({ type: "PULL_RESP", version: 2, token: 1, txpk: txpkOf(phy, 9_000_000) }, gw.localPort);
    expect((await gw.nextDownlink(2_000)).txAck).toEqual({ error: "TOO_LATE" });
    server.sendTo({ type: "PULL_RESP", version: 2, token: 2, txpk: txpkOf(phy, gw.tmst + 1_000_000) }, gw.localPort);
    expect((await gw.nextDownlink(2_000)).txAck).toEqual({ error: "NONE" });
  });

  test("a datagram the codec refuses is reported as unexpected, and close ends a pending wait", async () => {
    const gw = forwarder();
    await gw.start();
    const unexpected = new Promise<string>((r) => gw.once("unexpected", (u) => r(u.reason)));
    server.socket.send(Buffer.from([2, 0, 1, 9]), gw.localPort, "127.0.0.1");
    expect(await unexpected).toMatch(/identifier 0x09/);
    const waiting = gw.nextDownlink(5_000);
    await gw.close();
    await expect(waiting).rejects.toThrow(/closed/);
  });

  test("three gateways hear one frame with their own signal", async () => {
    const gws = ["aa555a0000000001", "aa555a0000000002", "aa555a0000000003"].map((eui) =>
      forwarder({ gatewayEui: eui }),
    );
    const data = Buffer.from("40da1b0126000100011122334455", "hex");
    await hearOnAll({ data }, [
      { forwarder: gws[0]!, rssi: -110, lsnr: -8 },
      { forwarder: gws[1]!, rssi: -70, lsnr: 9 },
      { forwarder: gws[2]!, rssi: -90, lsnr: 1 },
    ]);
    const pushes = await server.waitFor("PUSH_DATA", 3);
    const byGateway = Object.fromEntries(
      pushes.map((p) => (p.type === "PUSH_DATA" ? [p.gatewayEui, p.rxpk[0]!.rssi] : [])),
    );
    expect(byGateway).toEqual({ aa555a0000000001: -110, aa555a0000000002: -70, aa555a0000000003: -90 });
  });
});

function value<T>(r: { ok: true; value: T } | { ok: false; reason: string }): T {
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}
