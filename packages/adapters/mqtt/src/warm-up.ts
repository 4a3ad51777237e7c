/**
 * Warms the MQTT connect path before the adapter's listeners open. V8 runs code in its interpreter, then in baseline
 * code, until it has seen it run often: in a connect storm against a freshly started adapter (its devices all
 * reconnecting after a restart) the adapter spent three to four times the CPU per connect in the storm's first two
 * seconds that it spent from the fourth on, and those seconds made the storm's CONNACK p99 (docs/performance.md,
 * "Connections"). So before it listens, the adapter runs device connections (CONNECT with credentials, one QoS 1
 * PUBLISH, DISCONNECT) over loopback TCP through a throw-away adapter instance of the same code, answered by a
 * stand-in registry: nothing reaches the real registry, and no session, connect log or uplink is recorded.
 */
import { connect, type Socket } from "node:net";
import type { Logger } from "pino";
import type {
  AuthOutcome,
  DeviceSession,
  ListenerCertificate,
  LoraActivateResult,
  RegistryClient,
  RegistryLinkState,
  UplinkSettled,
} from "@iot/adapter-core";
import { createMqttAdapter } from "./mqtt-adapter.js";
import type { Listener } from "./transport/listen.js";
import { listenTcp } from "./transport/tcp.js";

/** Connections in flight at once during the warm-up. */
const CONCURRENCY = 32;
/** A warm-up taking longer than this is abandoned (the adapter starts anyway), ms. */
const WARM_UP_LIMIT_MS = 30_000;
/** What one connection answers before it is done: CONNACK (4 bytes) and PUBACK (4 bytes). */
const ANSWER_BYTES = 8;
/** A warm-up connection silent this long is dropped, ms: none may hold up the adapter's start. */
const DEVICE_LIMIT_MS = 5_000;

/** An MQTT string: its length in two bytes, then its UTF-8 bytes. */
function mqttString(s: string): Buffer {
  const bytes = Buffer.from(s);
  const out = Buffer.alloc(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  bytes.copy(out, 2);
  return out;
}

/** A packet of `type` (its first byte) with `body`, remaining length encoded (MQTT 3.1.1 §2.2.3). */
function packet(type: number, body: Buffer): Buffer {
  const length: number[] = [];
  let n = body.length;
  do {
    length.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([type, ...length]), body]);
}

/** What a warm-up device sends: CONNECT (clean session, user name and password), a QoS 1 PUBLISH, then DISCONNECT. */
function devicePackets(i: number): { hello: Buffer; bye: Buffer } {
  const id = `warm-up-${i}`;
  const connectPacket = packet(
    0x10,
    Buffer.concat([
      mqttString("MQTT"),
      Buffer.from([4, 0xc2, 0, 60]),
      mqttString(id),
      mqttString(id),
      mqttString("warm-up"),
    ]),
  );
  const publishPacket = packet(0x32, Buffer.concat([mqttString("data"), Buffer.from([0, 1]), Buffer.from("{}")]));
  return { hello: Buffer.concat([connectPacket, publishPacket]), bye: Buffer.from([0xe0, 0]) };
}

/** The registry of the warm-up's adapter instance: admits every device, acknowledges every uplink, keeps nothing. */
class StandInRegistry implements RegistryClient {
  readonly instanceId = "warm-up";
  readonly state: RegistryLinkState = "connected";
  readonly pendingUplinks = 0;
  /** Devices admitted, and uplinks acknowledged: what the warm-up's connections got through. */
  sessions = 0;
  uplinks = 0;

  authenticate(_protocol: string, credentials: { kind: string; clientId?: string }): Promise<AuthOutcome> {
    const deviceId = credentials.clientId ?? "warm-up";
    // Shaped as the gRPC client's sessions are (the same properties in the same order): code that V8 compiled for
    // these objects then fits the real ones.
    const session: DeviceSession = {
      sessionId: `warm-up-${++this.sessions}`,
      device: {
        tenantId: "warm-up",
        deviceIntId: this.sessions,
        deviceId,
        deviceName: deviceId,
        productIntId: 0,
        productId: "warm-up",
        mountpoint: `warm-up/${this.sessions}/`,
        defaultDownlinkTopic: "inbox",
        deviceType: 1,
        isGateway: false,
        autoSub: false,
      },
      policies: [],
      subscriptions: [],
      credentialStamp: "",
      tenantUplinkRate: 0,
    };
    return Promise.resolve({ ok: true, session });
  }
  sessionOpened(): void {}
  sessionClosed(): void {}
  sessionState(): void {}
  publish(): Promise<void> {
    return Promise.resolve();
  }
  publishThen(_uplink: unknown, settled: UplinkSettled): void {
    this.uplinks++;
    queueMicrotask(() => settled());
  }
  loraActivate(): Promise<{ result: LoraActivateResult; message: string }> {
    return Promise.resolve({ result: "UNAVAILABLE", message: "warm-up" });
  }
  reportLoraCounters(): void {}
  setHandlers(): void {}
  issueListenerCertificate(): Promise<ListenerCertificate> {
    return Promise.reject(new Error("no certificates during the warm-up"));
  }
  start(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** One warm-up device: connects, publishes once, waits for CONNACK and PUBACK, disconnects. Never rejects. */
function oneDevice(port: number, i: number): Promise<void> {
  const { hello, bye } = devicePackets(i);
  return new Promise((resolve) => {
    const socket: Socket = connect(port, "127.0.0.1", () => socket.write(hello));
    let answered = 0;
    socket.on("data", (chunk: Buffer) => {
      answered += chunk.length;
      if (answered >= ANSWER_BYTES) socket.end(bye);
    });
    socket.setTimeout(DEVICE_LIMIT_MS, () => socket.destroy());
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
  });
}

/** What a warm-up did: devices admitted and uplinks acknowledged through the connect path, and how long it took. */
export interface WarmUpReport {
  readonly admitted: number;
  readonly published: number;
  readonly ms: number;
}

/**
 * Runs `connects` warm-up connections (none when 0). It only makes the first real connects cheaper, so it never fails
 * the start: one that fails, or takes over 30 s in all, is logged and given up.
 */
export async function warmUp(connects: number, logger: Logger): Promise<WarmUpReport> {
  if (connects <= 0) return { admitted: 0, published: 0, ms: 0 };
  const started = performance.now();
  const registry = new StandInRegistry();
  const adapter = await createMqttAdapter({
    registry,
    logger: logger.child({ component: "warm-up" }, { level: "silent" }),
    policyDefault: "allow",
  });
  let listener: Listener | undefined;
  let next = 0;
  const worker = async (port: number) => {
    while (next < connects && performance.now() - started < WARM_UP_LIMIT_MS) await oneDevice(port, next++);
  };
  try {
    const { port } = (listener = await listenTcp(adapter, { port: 0, host: "127.0.0.1" }));
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, connects) }, () => worker(port)));
  } catch (err) {
    logger.warn({ err }, "connect path warm-up failed");
  } finally {
    await listener?.close();
    await adapter.close();
  }
  const report = {
    admitted: registry.sessions,
    published: registry.uplinks,
    ms: Math.round(performance.now() - started),
  };
  if (next < connects) logger.warn({ ...report, connects }, "connect path warm-up gave up early");
  else logger.info({ ...report, connects }, "connect path warmed up");
  return report;
}
