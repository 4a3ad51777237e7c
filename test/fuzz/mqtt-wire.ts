/**
 * A minimal MQTT 3.1.1 or 5.0 device over an in-memory stream (mqtt-packet's parser and generator), for fuzz targets:
 * connects, publishes QoS 1 and waits for the PUBACK, so a target can show a well-behaved device keeps working.
 */
import { duplexPair, type Duplex } from "node:stream";
import mqttPacket, { type IPublishPacket, type Packet } from "mqtt-packet";

/** MQTT 5.0 properties of a PUBLISH, as mqtt-packet names them. */
export type PublishProperties = NonNullable<IPublishPacket["properties"]>;

/** One device connection served by `handle` (an adapter's `handle(stream)`). */
export class WireDevice {
  private readonly ours: Duplex;
  private readonly waiters: Array<(p: Packet) => boolean> = [];
  closed = false;
  private nextId = 1;

  constructor(
    handle: (stream: Duplex) => void,
    readonly protocolVersion: 4 | 5 = 4,
  ) {
    const [ours, theirs] = duplexPair();
    this.ours = ours;
    const parser = mqttPacket.parser({ protocolVersion });
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

  /** Sends CONNECT and resolves with the CONNACK's return code (3.1.1) or reason code (5.0). */
  async connect(clientId: string, username: string, password: string): Promise<number> {
    const ack = this.next((p) => p.cmd === "connack", "CONNACK");
    this.send({
      cmd: "connect",
      protocolId: "MQTT",
      protocolVersion: this.protocolVersion,
      clean: true,
      keepalive: 0,
      clientId,
      username,
      password: Buffer.from(password),
    });
    const connack = (await ack) as { returnCode?: number; reasonCode?: number };
    return connack.returnCode ?? connack.reasonCode ?? -1;
  }

  /**
   * Publishes QoS 1 (with MQTT 5.0 `properties`) and resolves once the PUBACK of its message id came back; rejects
   * when an MQTT 5.0 PUBACK refuses it (reason code 0x80 or above).
   */
  async publish(topic: string, payload: string, properties?: PublishProperties): Promise<void> {
    const messageId = this.nextId++;
    const ack = this.next((p) => p.cmd === "puback" && p.messageId === messageId, `PUBACK ${messageId}`);
    this.send({
      cmd: "publish",
      topic,
      payload: Buffer.from(payload),
      qos: 1,
      messageId,
      retain: false,
      dup: false,
      ...(properties ? { properties } : {}),
    });
    const code = ((await ack) as { reasonCode?: number }).reasonCode ?? 0;
    if (code >= 0x80) throw new Error(`PUBACK ${messageId} refused the publish with reason code ${code}`);
  }

  send(packet: Packet): void {
    this.ours.write(mqttPacket.generate(packet, { protocolVersion: this.protocolVersion }));
  }

  destroy(): void {
    this.ours.destroy();
  }
}
