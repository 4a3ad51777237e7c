import { createSocket, type Socket } from "node:dgram";
import { FakeRegistryClient } from "@iot/adapter-core";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, test, vi } from "vitest";
import { decodeSemtechPacket, encodeSemtechPacket, type SemtechPacket } from "../codec/semtech-udp.js";
import { createNetworkServer, type NetworkServer } from "./network-server.js";
import { GW1, gatewayDevice } from "./test-kit.js";
import { LorawanUdpThread } from "./udp-thread.js";
import type { LorawanUdp } from "./udp-listener.js";

/** A gateway's socket on 127.0.0.1, recording every datagram it gets back. */
async function gatewaySocket(): Promise<{ socket: Socket; got: Buffer[] }> {
  const socket = createSocket("udp4");
  const got: Buffer[] = [];
  socket.on("message", (m) => got.push(m));
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
  return { socket, got };
}

const encoded = (p: SemtechPacket) => {
  const d = encodeSemtechPacket(p);
  if (!d.ok) throw new Error(d.reason);
  return d.value;
};

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error("condition not met in time");
    },
    { timeout: ms, interval: 5 },
  );
}

const open: Array<{ close(): unknown }> = [];
const errors: Error[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  expect(errors.splice(0)).toEqual([]);
});

async function start(): Promise<{ thread: LorawanUdpThread; server: NetworkServer; udp: LorawanUdp }> {
  const thread = new LorawanUdpThread((err) => errors.push(err));
  const server = createNetworkServer({
    registry: new FakeRegistryClient({ devices: [gatewayDevice(1, GW1)] }),
    logger: pino({ level: "silent" }),
    send: thread.send,
    netId: "000013",
    policyDefault: "allow",
    gatewayTimeoutSeconds: 60,
    deviceTimeoutSeconds: 600,
    devStatusEvery: 0,
  });
  const udp = await thread.listen(server, { port: 0, host: "127.0.0.1" });
  open.push(server, udp);
  return { thread, server, udp };
}

describe("the packet-forwarder socket in its own thread", () => {
  test("acknowledges PULL_DATA and PUSH_DATA once each, and the server still reads every datagram", async () => {
    const { server, udp } = await start();
    const gw = await gatewaySocket();
    open.push({ close: () => gw.socket.close() });
    gw.socket.send(encoded({ type: "PULL_DATA", version: 2, token: 7, gatewayEui: GW1 }), udp.port, "127.0.0.1");
    await until(() => server.gateways.openLease(GW1) !== undefined);
    const push = { type: "PUSH_DATA" as const, version: 2 as const, token: 8, gatewayEui: GW1, ignored: [], rxpk: [] };
    gw.socket.send(encoded(push), udp.port, "127.0.0.1");
    await until(() => server.stats.datagrams === 2 && gw.got.length >= 2);
    await quietFor(50, "a second ACK of either would come within this");
    expect(gw.got.map((d) => decodeSemtechPacket(d))).toEqual([
      { ok: true, value: { type: "PULL_ACK", version: 2, token: 7 } },
      { ok: true, value: { type: "PUSH_ACK", version: 2, token: 8 } },
    ]);
  });

  test("leaves a datagram that is no PUSH_DATA or PULL_DATA unanswered and hands it to the server as malformed", async () => {
    const { server, udp } = await start();
    const gw = await gatewaySocket();
    open.push({ close: () => gw.socket.close() });
    for (const bad of [Buffer.from([2, 0, 1, 0, 1, 2]), Buffer.from([9, 0, 0, 0]), Buffer.from("{x")])
      gw.socket.send(bad, udp.port, "127.0.0.1");
    await until(() => server.stats.malformed === 3);
    await quietFor(50, "an answer to any of them would come within this");
    expect(gw.got).toEqual([]);
  });

  test("sends the server's datagrams from the listening socket", async () => {
    const { thread, udp } = await start();
    const gw = await gatewaySocket();
    open.push({ close: () => gw.socket.close() });
    const from: number[] = [];
    gw.socket.on("message", (_m, rinfo) => from.push(rinfo.port));
    thread.send(Buffer.from("hello"), gw.socket.address().port, "127.0.0.1");
    await until(() => gw.got.length === 1);
    expect([gw.got[0]!.toString(), from[0]]).toEqual(["hello", udp.port]);
  });

  test("refuses a port already in use with the setting to change", async () => {
    const busy = await gatewaySocket();
    open.push({ close: () => busy.socket.close() });
    const thread = new LorawanUdpThread(() => {});
    await expect(
      thread.listen({ receive: () => {} }, { port: busy.socket.address().port, host: "127.0.0.1" }),
    ).rejects.toThrow(/already in use.*IOT_LORA_UDP_PORT/);
  });
});
