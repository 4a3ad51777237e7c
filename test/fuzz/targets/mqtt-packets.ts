/**
 * MQTT packets through the MQTT adapter's handler (aedes with the adapter's hooks) on in-memory streams: each case
 * is a connection sending a few valid packets (CONNECT as a known or unknown device, PUBLISH QoS 0/1/2, SUBSCRIBE,
 * UNSUBSCRIBE, PINGREQ, PUBACK, DISCONNECT) whose bytes are mutated. Nothing may throw out of the adapter (an
 * uncaught exception or unhandled rejection fails the case), and a device on its own connection keeps publishing
 * QoS 1 with PUBACKs and its uplinks reaching the registry.
 */
import fc from "fast-check";
import mqttPacket, { type Packet } from "mqtt-packet";
import { DEVICES } from "../../../packages/adapters/mqtt/src/test-support.js";
import { mutatedBytes, type FuzzTarget } from "../harness.js";
import { inWrites, mqttAdapterSession } from "../mqtt-session.js";

const topic = fc.oneof(
  fc.constantFrom("telemetry", "up/x", "secret/keys", "config/a", "inbox", "$SYS/x", "a/+/b", "#", ""),
  fc.string({ maxLength: 20 }),
);
const payload = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
const messageId = fc.integer({ min: 1, max: 0xffff });
const fuzzDevices = [DEVICES.a, DEVICES.otherTenantA, DEVICES.blocked, DEVICES.restricted, DEVICES.proxied];

const connect: fc.Arbitrary<Packet> = fc
  .record({
    device: fc.constantFrom(...fuzzDevices),
    rightToken: fc.boolean(),
    clean: fc.boolean(),
    keepalive: fc.integer({ min: 0, max: 600 }),
    will: fc.option(fc.record({ topic, payload, qos: fc.constantFrom(0, 1) }), { nil: undefined }),
  })
  .map((c): Packet => ({
    cmd: "connect",
    protocolId: "MQTT",
    protocolVersion: 4,
    clean: c.clean,
    keepalive: c.keepalive,
    clientId: c.device.deviceId,
    username: c.device.username,
    password: Buffer.from(c.rightToken ? c.device.token : "wrong"),
    ...(c.will ? { will: { ...c.will, retain: false } } : {}),
  }));

const afterConnect: fc.Arbitrary<Packet> = fc.oneof(
  fc
    .record({ topic, payload, qos: fc.constantFrom(0, 1, 2), messageId })
    .map((p): Packet => ({ cmd: "publish", ...p, retain: false, dup: false })),
  fc
    .record({
      messageId,
      subscriptions: fc.array(fc.record({ topic, qos: fc.constantFrom(0, 1, 2) }), { minLength: 1, maxLength: 3 }),
    })
    .map((p): Packet => ({ cmd: "subscribe", ...p })),
  fc
    .record({ messageId, unsubscriptions: fc.array(topic, { minLength: 1, maxLength: 3 }) })
    .map((p): Packet => ({ cmd: "unsubscribe", ...p })),
  messageId.map((id): Packet => ({ cmd: "puback", messageId: id })),
  fc.constant<Packet>({ cmd: "pingreq" }),
  fc.constant<Packet>({ cmd: "disconnect" }),
);

/** A packet's bytes; one mqtt-packet will not write (an empty topic, say) is left out: mutations make such ones. */
function generate(p: Packet): Buffer {
  try {
    return mqttPacket.generate(p);
  } catch {
    return Buffer.alloc(0);
  }
}

/** The bytes of a connection: CONNECT (mostly) then up to 4 packets, all mutated together. */
const connection = mutatedBytes(
  fc
    .tuple(fc.option(connect, { freq: 8, nil: undefined }), fc.array(afterConnect, { maxLength: 4 }))
    .map(([c, rest]) => new Uint8Array(Buffer.concat([...(c ? [c] : []), ...rest].map(generate)))),
);

/** The MQTT adapter target: in-memory connections to one adapter on a fake registry. */
export const mqttPackets: FuzzTarget<Uint8Array[]> = {
  name: "mqtt-packets",
  description: "MQTT packets, valid and mutated, never crash the adapter; a live device keeps getting PUBACKs",
  start: () =>
    mqttAdapterSession(inWrites(connection), Object.values(DEVICES), [{ device: DEVICES.b, protocolVersion: 4 }]),
};
