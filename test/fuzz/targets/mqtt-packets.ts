/**
 * MQTT packets through the MQTT adapter's handler (aedes with the adapter's hooks) on in-memory streams: each case
 * is a connection sending a few valid packets (CONNECT as a known or unknown device, PUBLISH QoS 0/1/2, SUBSCRIBE,
 * UNSUBSCRIBE, PINGREQ, PUBACK, DISCONNECT) whose bytes are mutated. Nothing may throw out of the adapter (an
 * uncaught exception or unhandled rejection fails the case), and a device on its own connection keeps publishing
 * QoS 1 with PUBACKs and its uplinks reaching the registry.
 */
import { duplexPair } from "node:stream";
import fc from "fast-check";
import mqttPacket, { type Packet } from "mqtt-packet";
import { createAdapterLogger, FakeRegistryClient } from "@iot/adapter-core";
import { createMqttAdapter } from "@iot/adapter-mqtt";
import { DEVICES } from "../../../packages/adapters/mqtt/src/test-support.js";
import { mutatedBytes, type FuzzTarget } from "../harness.js";
import { WireDevice } from "../mqtt-wire.js";

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

/** Split points: a connection's bytes arrive in 1 to 3 writes, as TCP segments would. */
const writes = fc.tuple(connection, fc.array(fc.nat(), { maxLength: 2 })).map(([bytes, cuts]) => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
});

/** Waits until the stream closes or stays quiet for `quietMs`, at most `maxMs`. */
function settle(stream: NodeJS.ReadableStream & { destroyed: boolean }, quietMs = 3, maxMs = 40): Promise<void> {
  return new Promise((resolve) => {
    let quiet: NodeJS.Timeout;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      stream.off("data", again);
      resolve();
    };
    const again = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    };
    const cap = setTimeout(done, maxMs);
    stream.on("data", again);
    stream.once("close", done);
    again();
  });
}

/** The MQTT adapter target: in-memory connections to one adapter on a fake registry. */
export const mqttPackets: FuzzTarget<Uint8Array[]> = {
  name: "mqtt-packets",
  description: "MQTT packets, valid and mutated, never crash the adapter; a live device keeps getting PUBACKs",
  async start() {
    const registry = new FakeRegistryClient({ devices: Object.values(DEVICES) });
    registry.start();
    const adapter = await createMqttAdapter({
      registry,
      logger: createAdapterLogger("fuzz", "silent"),
      policyDefault: "allow",
      connectTimeoutMs: 200,
    });
    let live: WireDevice | undefined;
    let published = 0;
    return {
      arbitrary: writes,
      async run(chunks) {
        const [ours, theirs] = duplexPair();
        ours.on("error", () => {});
        ours.resume();
        adapter.handle(theirs);
        for (const c of chunks) ours.write(c);
        await settle(ours);
        ours.destroy();
      },
      async alive() {
        // A fuzzed connection may take over the live device's client id (a legitimate takeover): connect again then.
        if (!live || live.closed) {
          live?.destroy();
          live = new WireDevice((s) => adapter.handle(s));
          const code = await live.connect(DEVICES.b.deviceId, DEVICES.b.username, DEVICES.b.token);
          if (code !== 0) throw new Error(`the live device's CONNECT was answered ${code}`);
        }
        const before = registry.uplinks.filter((u) => u.deviceIntId === DEVICES.b.deviceIntId).length;
        await live.publish("telemetry", JSON.stringify({ n: ++published }));
        const after = registry.uplinks.filter((u) => u.deviceIntId === DEVICES.b.deviceIntId).length;
        if (after !== before + 1)
          throw new Error(`the live device's publish reached the registry ${after - before} times`);
      },
      forget() {
        registry.uplinks.length = 0;
        registry.events.length = 0;
        registry.authAttempts.length = 0;
      },
      async stop() {
        live?.destroy();
        await adapter.close();
      },
    };
  },
};
