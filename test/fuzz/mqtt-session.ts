/**
 * What the MQTT fuzz targets (3.1.1 and 5.0) share: one MQTT adapter on a fake registry fed in-memory connections,
 * each case a connection's bytes in 1 to 3 writes, and the live devices that prove, between cases, that well-formed
 * traffic of other devices is still served and stored exactly once.
 */
import { duplexPair } from "node:stream";
import fc from "fast-check";
import { createAdapterLogger, FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import { createMqttAdapter } from "@iot/adapter-mqtt";
import type { FuzzSession } from "./harness.js";
import { WireDevice, type PublishProperties } from "./mqtt-wire.js";

/** Split points: a connection's bytes arrive in 1 to 3 writes, as TCP segments would. */
export function inWrites(connection: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array[]> {
  return fc.tuple(connection, fc.array(fc.nat(), { maxLength: 2 })).map(([bytes, cuts]) => {
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    return [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
  });
}

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

/**
 * A device that must keep working while the fuzzed connections come and go. An MQTT 5.0 one publishes the way a v5
 * device does: a topic alias (the topic itself only on a connection's first publish), a content type, a payload
 * format indicator and a user property.
 */
export interface LiveDevice {
  readonly device: FakeDevice;
  readonly protocolVersion: 4 | 5;
}

/** The live device's topic, which every one of its uplinks must be stored under. */
const LIVE_TOPIC = "telemetry";

/** One live device's connection and what it published on it. */
class Live {
  private wire: WireDevice | undefined;
  private publishedOnWire = 0;
  private published = 0;

  constructor(
    private readonly live: LiveDevice,
    private readonly registry: FakeRegistryClient,
    private readonly serve: ConstructorParameters<typeof WireDevice>[0],
  ) {}

  /** Publishes one QoS 1 message (connecting first when needed) and checks it was stored once under its topic. */
  async check(): Promise<void> {
    const { device, protocolVersion } = this.live;
    // A fuzzed connection may take over the live device's client id (a legitimate takeover): connect again then.
    if (!this.wire || this.wire.closed) {
      this.wire?.destroy();
      this.wire = new WireDevice(this.serve, protocolVersion);
      this.publishedOnWire = 0;
      const code = await this.wire.connect(device.deviceId, device.username, device.token);
      if (code !== 0) throw new Error(`live device ${device.deviceId}'s CONNECT was answered ${code}`);
    }
    const mine = () => this.registry.uplinks.filter((u) => u.deviceIntId === device.deviceIntId);
    const before = mine().length;
    const n = ++this.published;
    const payload = JSON.stringify({ n });
    if (protocolVersion === 4) await this.wire.publish(LIVE_TOPIC, payload);
    else {
      const properties: PublishProperties = {
        topicAlias: 1,
        contentType: "application/json",
        payloadFormatIndicator: true,
        userProperties: { n: String(n) },
      };
      await this.wire.publish(this.publishedOnWire === 0 ? LIVE_TOPIC : "", payload, properties);
    }
    this.publishedOnWire++;
    const stored = mine().slice(before);
    if (stored.length !== 1)
      throw new Error(`live device ${device.deviceId}'s publish reached the registry ${stored.length} times`);
    if (stored[0]!.topic !== LIVE_TOPIC)
      throw new Error(`live device ${device.deviceId}'s publish was stored under "${stored[0]!.topic}"`);
  }

  stop(): void {
    this.wire?.destroy();
  }
}

/**
 * Starts the adapter on a fake registry holding `devices` and answers the fuzz session: each case's writes go to a
 * new connection, which is closed once it went quiet; the live check publishes from every live device in turn.
 */
export async function mqttAdapterSession(
  arbitrary: fc.Arbitrary<Uint8Array[]>,
  devices: readonly FakeDevice[],
  live: readonly LiveDevice[],
): Promise<FuzzSession<Uint8Array[]>> {
  const registry = new FakeRegistryClient({ devices: [...devices] });
  registry.start();
  const adapter = await createMqttAdapter({
    registry,
    logger: createAdapterLogger("fuzz", "silent"),
    policyDefault: "allow",
    connectTimeoutMs: 200,
  });
  const lives = live.map((l) => new Live(l, registry, (s) => adapter.handle(s)));
  return {
    arbitrary,
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
      for (const l of lives) await l.check();
    },
    forget() {
      registry.uplinks.length = 0;
      registry.events.length = 0;
      registry.authAttempts.length = 0;
    },
    async stop() {
      for (const l of lives) l.stop();
      await adapter.close();
    },
  };
}
