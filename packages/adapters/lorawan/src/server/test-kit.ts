// Helpers for the network server's unit tests: an in-memory packet forwarder (datagrams in, datagrams out) and
// LoRaWAN frames built with lora-packet, as a device would build them.
import { FakeRegistryClient, type FakeDevice, type LoraDeviceInfo } from "@iot/adapter-core";
import { nextTurn } from "@iot/config/testing";
import pino from "pino";
import { vi } from "vitest";
import { loraPacket } from "../codec/lora-packet.js";
import type { RxPacket } from "../codec/radio-packet.js";
import { decodeSemtechPacket, encodeSemtechPacket, type SemtechPacket } from "../codec/semtech-udp.js";
import { createNetworkServer, type NetworkServer, type NetworkServerOptions } from "./network-server.js";

/** A datagram the server sent, decoded, with where it went. */
export interface Sent {
  packet: SemtechPacket;
  port: number;
  address: string;
}

export const GW1 = "aa555a0000000001";
export const GW2 = "aa555a0000000002";
export const GW3 = "aa555a0000000003";
export const NWK = "44024241ed4ce9a68c6a8bc055233fd3";
export const APP = "ec925802ae430ca77fd3dd73cb2cc588";
export const APP_KEY = "2b7e151628aed2a6abf7158809cf4f3c";

/** A LoRa device record for the fake registry. */
export function loraDevice(deviceIntId: number, lora: Partial<LoraDeviceInfo>): FakeDevice {
  return {
    deviceIntId,
    deviceId: `lora-${deviceIntId}`,
    username: `lora-${deviceIntId}`,
    token: "t",
    lora: {
      activation: "abp",
      devEui: "",
      appEui: "",
      appKey: "",
      canJoin: false,
      fcntCheck: 1,
      region: "EU868",
      classC: false,
      session: null,
      usedDevNonces: [],
      ...lora,
    },
  };
}

/** A gateway record: deviceID = its EUI. */
export const gatewayDevice = (deviceIntId: number, eui: string): FakeDevice => ({
  deviceIntId,
  deviceId: eui.toUpperCase(),
  username: `gw-${eui}`,
  token: "t",
  isGateway: true,
});

/** The server on an in-memory socket, with the fake registry. */
export class Harness {
  readonly registry: FakeRegistryClient;
  readonly server: NetworkServer;
  readonly sent: Sent[] = [];
  private token = 1;

  constructor(devices: FakeDevice[], options: Partial<NetworkServerOptions> = {}) {
    this.registry = new FakeRegistryClient({ devices });
    this.server = createNetworkServer({
      registry: this.registry,
      logger: pino({ level: "silent" }),
      send: (d, port, address) => {
        const p = decodeSemtechPacket(d);
        if (!p.ok) throw new Error(p.reason);
        this.sent.push({ packet: p.value, port, address });
      },
      netId: "000013",
      policyDefault: "allow",
      gatewayTimeoutSeconds: 60,
      deviceTimeoutSeconds: 600,
      devStatusEvery: 0,
      dedupWindowMs: 20,
      dedupRememberMs: 100,
      counterReportMs: 50,
      txAckTimeoutMs: 100,
      ...options,
    });
  }

  /** Sends a raw datagram from a gateway's address. */
  datagram(bytes: Buffer, port = 40_001): void {
    this.server.receive(bytes, { address: "10.0.0.1", port });
  }

  /** A PULL_DATA keepalive of the gateway (version 2 unless told). */
  pull(eui: string, version: 1 | 2 = 2): void {
    const d = encodeSemtechPacket({ type: "PULL_DATA", version, token: this.token++, gatewayEui: eui });
    if (d.ok) this.datagram(d.value, portOf(eui));
  }

  /** A PUSH_DATA of the gateway carrying `phy` heard with this radio reception. */
  push(eui: string, phy: Buffer, rx: Partial<RxPacket> = {}): void {
    const d = encodeSemtechPacket({
      type: "PUSH_DATA",
      version: 2,
      token: this.token++,
      gatewayEui: eui,
      ignored: [],
      rxpk: [
        {
          tmst: 1_000_000,
          freq: 868.1,
          chan: 0,
          rfch: 0,
          stat: 1,
          modu: "LORA",
          datr: "SF7BW125",
          codr: "4/5",
          rssi: -60,
          lsnr: 7,
          size: phy.length,
          data: phy,
          ...rx,
        },
      ],
    });
    if (!d.ok) throw new Error(d.reason);
    this.datagram(d.value, portOf(eui) - 1);
  }

  /** A TX_ACK of the gateway for the PULL_RESP with `token`. */
  txAck(eui: string, token: number, error = "NONE"): void {
    const d = encodeSemtechPacket({ type: "TX_ACK", version: 2, token, gatewayEui: eui, ack: { error } });
    if (d.ok) this.datagram(d.value, portOf(eui));
  }

  /** PULL_RESPs sent so far. */
  pullResps(): Array<Extract<SemtechPacket, { type: "PULL_RESP" }> & { port: number }> {
    return this.sent.flatMap((s) => (s.packet.type === "PULL_RESP" ? [{ ...s.packet, port: s.port }] : []));
  }

  /** Waits until `check` holds (checked every 5 ms, up to `ms`). */
  async until(check: () => boolean, ms = 2_000): Promise<void> {
    await vi.waitFor(
      () => {
        if (!check()) throw new Error("condition not met in time");
      },
      { timeout: ms, interval: 5 },
    );
  }

  /**
   * Resolves once what the datagrams so far set off has run: the server reads a datagram in the same turn and goes on
   * in promise callbacks (the fake registry answers in microtasks), all run before the next turn of the event loop.
   */
  async handled(): Promise<void> {
    await nextTurn();
  }
}

/** Each test gateway has its own UDP port: 41000 + its last byte (PULL_DATA) and one less (PUSH_DATA). */
export const portOf = (eui: string) => 41_000 + parseInt(eui.slice(-2), 16) * 2;

/** An uplink data frame as a device builds it; `fcnt` is its full 32-bit counter. */
export function dataUp(
  devAddr: string,
  fcnt: number,
  o: {
    payload?: Buffer;
    fPort?: number;
    confirmed?: boolean;
    ack?: boolean;
    fOpts?: Buffer;
    adr?: boolean;
    /** The ClassB bit (FCtrl bit 4, which lora-packet names FPending). */
    classB?: boolean;
  } = {},
  keys: { nwk: string; app: string } = { nwk: NWK, app: APP },
): Buffer {
  const msb = Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);
  const nwk = Buffer.from(keys.nwk, "hex");
  const packet = loraPacket.fromFields(
    {
      MType: o.confirmed ? "Confirmed Data Up" : "Unconfirmed Data Up",
      DevAddr: Buffer.from(devAddr, "hex"),
      FCtrl: { ADR: o.adr ?? false, ACK: o.ack ?? false, FPending: o.classB ?? false },
      FCnt: Buffer.from([(fcnt >> 8) & 0xff, fcnt & 0xff]),
      FOpts: o.fOpts ?? Buffer.alloc(0),
      FPort: o.fPort ?? 1,
      payload: o.payload ?? Buffer.from("hi"),
    },
    Buffer.from(keys.app, "hex"),
    nwk,
    undefined,
    msb,
  );
  loraPacket.recalculateMIC(packet, nwk, undefined, msb);
  return Buffer.from(packet.getPHYPayload()!);
}

/** A JoinRequest as a device builds it. */
export function joinRequest(appEui: string, devEui: string, devNonce: number, appKey = APP_KEY): Buffer {
  const packet = loraPacket.fromFields(
    {
      MType: "Join Request",
      AppEUI: Buffer.from(appEui, "hex"),
      DevEUI: Buffer.from(devEui, "hex"),
      DevNonce: Buffer.from([devNonce >> 8, devNonce & 0xff]),
    },
    undefined,
    undefined,
    Buffer.from(appKey, "hex"),
  );
  return Buffer.from(packet.getPHYPayload()!);
}

/** Reads a downlink data frame as the device does: header fields and the decrypted payload. */
export function readDownlink(phy: Buffer, keys: { nwk: string; app: string } = { nwk: NWK, app: APP }) {
  const packet = loraPacket.fromWire(phy);
  const nwk = Buffer.from(keys.nwk, "hex");
  return {
    micOk: loraPacket.verifyMIC(packet, nwk),
    mType: packet.getMType(),
    ack: packet.getFCtrlACK(),
    fCnt: packet.getFCnt(),
    fPort: packet.getFPort(),
    fOpts: packet.FOpts ? Buffer.from(packet.FOpts) : Buffer.alloc(0),
    payload: packet.FRMPayload ? Buffer.from(loraPacket.decrypt(packet, Buffer.from(keys.app, "hex"), nwk)) : undefined,
  };
}
