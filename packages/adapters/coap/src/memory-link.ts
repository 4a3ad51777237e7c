import { parse, type ParsedPacket } from "coap-packet";
import pino from "pino";
import {
  createMessageLayer,
  type CoapHandler,
  type MessageLayer,
  type MessageLayerOptions,
  type Peer,
} from "./message-layer.js";
import type { DatagramTarget } from "./transport/udp.js";

/** One datagram on the link. */
export interface Crossing {
  readonly from: "server" | "device";
  readonly to: Peer;
  readonly packet: ParsedPacket;
}

/** What becomes of a datagram on the link. */
export type Fate = "deliver" | "drop" | "twice";

/**
 * Two CoAP endpoints joined in memory, for tests: a message layer acting as the server (its `request`/`observe` go
 * to the device) and a device, either another message layer whose handler answers as the device would, or any
 * datagram target scripted by the test. Datagrams cross on the next microtask, in order, so fake timers do not hold
 * them; `fate` can drop or duplicate any, and `log` keeps them all, parsed.
 */
export class MemoryLink {
  readonly log: Crossing[] = [];
  fate: (c: Crossing) => Fate = () => "deliver";
  readonly serverPeer: Peer = { address: "10.0.0.1", port: 5683 };
  /** The device's address as the server sees it; a test may change it (a NAT rebinding). */
  devicePeer: Peer = { address: "10.0.0.2", port: 56830 };
  readonly server: MessageLayer;
  device: DatagramTarget;

  /** `options` are both layers'; `deviceOptions` override them for the device's layer. */
  constructor(
    serverHandler: CoapHandler,
    device: CoapHandler | DatagramTarget,
    options: Partial<MessageLayerOptions>,
    deviceOptions: Partial<MessageLayerOptions> = {},
  ) {
    const base = { logger: pino({ level: "silent" }), maxBodyBytes: 64 * 1024, ...options };
    this.server = createMessageLayer(serverHandler, { ...base, send: (d, to) => this.carry("server", d, to) });
    this.device =
      typeof device === "function"
        ? createMessageLayer(device, { ...base, ...deviceOptions, send: (d) => this.toServer(d) })
        : device;
  }

  /** Sends `datagram` from the device to the server (as the device's current address). */
  readonly toServer = (datagram: Buffer): void => this.carry("device", datagram, this.serverPeer);

  /** The packets one side sent, in order. */
  sent(from: Crossing["from"]): ParsedPacket[] {
    return this.log.filter((c) => c.from === from).map((c) => c.packet);
  }

  close(): void {
    this.server.close();
    (this.device as Partial<MessageLayer>).close?.();
  }

  private carry(from: Crossing["from"], datagram: Buffer, to: Peer): void {
    const crossing = { from, to, packet: parse(datagram) };
    this.log.push(crossing);
    const fate = this.fate(crossing);
    if (fate === "drop") return;
    const deliver = () => {
      if (from === "device")
        this.server.handle(datagram, this.devicePeer, (d) => this.carry("server", d, this.devicePeer));
      else this.device.handle(datagram, this.serverPeer, (d) => this.carry("device", d, this.serverPeer));
    };
    for (let n = fate === "twice" ? 2 : 1; n > 0; n--) void Promise.resolve().then(deliver);
  }
}
