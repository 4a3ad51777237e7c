/**
 * A minimal MQTT 3.1.1 device over an in-memory stream (mqtt-packet's parser and generator), for fuzz targets:
 * connects, publishes QoS 1 and waits for the PUBACK, so a target can show a well-behaved device keeps working.
 */
import { duplexPair, type Duplex } from "node:stream";
import mqttPacket, { type Packet } from "mqtt-packet";

/** One device connection served by `handle` (an adapter's `handle(stream)`). */
export class WireDevice {
  private readonly ours: Duplex;
  private readonly waiters: Array<(p: Packet) => boolean> = [];
  closed = false;
  private nextId = 1;

  constructor(handle: (stream: Duplex) => void) {
    const [ours, theirs] = duplexPair();
    this.ours = ours;
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    parser.on("packet", (p) => {
      const i = this.waiters.findIndex((w) => w(p));
      if (i >= 0) this.waiters.splice(i, 1);
    });
    parser.on("error", () => ours.destroy());
    ours.on("data", (b: Buffer) => parser.parse(b));
    ours.on("close", () => (this.closed = true));
    ours.on("error", () => {});
    handle(theirs);
  }

  /** Resolves with the first packet `match` accepts, or rejects after `ms`. */
  private next(match: (p: Packet) => boolean, what: string, ms = 3000): Promise<Packet> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
      this.waiters.push((p) => {
        if (!match(p)) return false;
        clearTimeout(timer);
        resolve(p);
        return true;
      });
    });
  }

  /** Sends CONNECT and resolves with the CONNACK's return code. */
  async connect(clientId: string, username: string, password: string): Promise<number> {
    const ack = this.next((p) => p.cmd === "connack", "CONNACK");
    this.send({
      cmd: "connect",
      protocolId: "MQTT",
      protocolVersion: 4,
      clean: true,
      keepalive: 0,
      clientId,
      username,
      password: Buffer.from(password),
    });
    return ((await ack) as { returnCode?: number }).returnCode ?? -1;
  }

  /** Publishes QoS 1 and resolves once the PUBACK of its message id came back. */
  async publish(topic: string, payload: string): Promise<void> {
    const messageId = this.nextId++;
    const ack = this.next((p) => p.cmd === "puback" && p.messageId === messageId, `PUBACK ${messageId}`);
    this.send({ cmd: "publish", topic, payload: Buffer.from(payload), qos: 1, messageId, retain: false, dup: false });
    await ack;
  }

  send(packet: Packet): void {
    this.ours.write(mqttPacket.generate(packet));
  }

  destroy(): void {
    this.ours.destroy();
  }
}
