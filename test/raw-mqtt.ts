import { connect as netConnect, type Socket } from "node:net";
import mqttPacket from "mqtt-packet";

/** What a device sends in CONNECT. */
export interface RawCredentials {
  readonly clientId: string;
  /** Clean session (default true); false asks for a persistent session. */
  readonly clean?: boolean;
  readonly username?: string;
  readonly password?: string;
}

/**
 * Opens a raw TCP connection, sends one MQTT 3.1.1 CONNECT and resolves with the CONNACK return code (-1 when the
 * connection ended without one, with the socket error's code when there was one) and the socket, left open. Cheaper
 * than a client library, so storms of thousands of devices fit in one process; a load generator passes CONNECT
 * packets built beforehand (`connectPacket`). With `timeoutMs`, a connection still without an answer then is
 * destroyed and counts as error "timeout" (a broker that accepted and went quiet, a SYN its full backlog dropped that
 * the kernel keeps retrying for two minutes), so a storm always ends.
 */
export function rawConnect(
  port: number,
  c: RawCredentials | Buffer,
  timeoutMs?: number,
): Promise<{ code: number; socket: Socket; error?: string }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, "127.0.0.1");
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    let settled = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            settle(-1, "timeout");
            socket.destroy();
          }, timeoutMs);
    const settle = (code: number, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(error === undefined ? { code, socket } : { code, socket, error });
    };
    parser.on("packet", (p) => p.cmd === "connack" && settle(p.returnCode ?? -1));
    socket.on("data", (b) => parser.parse(b));
    socket.on("error", (e: NodeJS.ErrnoException) => settle(-1, e.code ?? e.message));
    socket.on("close", () => settle(-1));
    socket.on("connect", () => socket.write(Buffer.isBuffer(c) ? c : connectPacket(c)));
  });
}

/** CONNACK return codes of a storm, counted: `{ "0": 1998, "3": 2 }`. */
export function countCodes(results: readonly { code: number }[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const r of results) codes[r.code] = (codes[r.code] ?? 0) + 1;
  return codes;
}

/** A device on a raw connection that stays subscribed and acknowledges what it receives (QoS 1 PUBACK). */
export interface RawDevice {
  readonly socket: Socket;
  /** Ends the connection. */
  close(): void;
}

/**
 * Connects like `rawConnect`, subscribes to `topics` at QoS 1 and calls `onMessage` with each PUBLISH payload it gets,
 * acknowledging QoS 1 ones; rejects unless the CONNACK is 0 and the SUBACK grants the subscription. Light enough for
 * tens of thousands of devices in one process (benchmarks of command delivery).
 */
export function rawDevice(
  port: number,
  c: RawCredentials,
  topics: readonly string[],
  onMessage: (payload: Buffer) => void,
  /** Holds each PUBACK this long (a device slow to answer a command). */
  pubackDelayMs = 0,
): Promise<RawDevice> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, "127.0.0.1");
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const device = { socket, close: () => socket.destroy() };
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`${c.clientId}: ${why}`));
    };
    parser.on("packet", (p) => {
      if (p.cmd === "connack") {
        if (p.returnCode !== 0) return fail(`CONNACK ${p.returnCode}`);
        const subscriptions = topics.map((topic) => ({ topic, qos: 1 as const }));
        socket.write(mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions }));
      } else if (p.cmd === "suback") {
        if (p.granted.some((g) => g !== 0 && g !== 1)) return fail(`SUBACK ${JSON.stringify(p.granted)}`);
        resolve(device);
      } else if (p.cmd === "publish") {
        const puback = () => socket.write(mqttPacket.generate({ cmd: "puback", messageId: p.messageId! }));
        if (p.qos === 1 && pubackDelayMs > 0) setTimeout(puback, pubackDelayMs);
        else if (p.qos === 1) puback();
        onMessage(Buffer.isBuffer(p.payload) ? p.payload : Buffer.from(p.payload));
      }
    });
    socket.on("data", (b) => parser.parse(b));
    socket.on("error", (e) => fail(e.message));
    socket.on("close", () => fail("connection closed"));
    socket.on("connect", () => socket.write(connectPacket(c)));
  });
}

/** A QoS 1 PUBLISH packet (a raw publisher's acknowledgements are not awaited). */
export function publishPacket(topic: string, payload: string, messageId: number): Buffer {
  return mqttPacket.generate({ cmd: "publish", topic, payload, qos: 1, dup: false, retain: false, messageId });
}

/** An MQTT 3.1.1 CONNECT (a clean session unless `c.clean` is false) with a 300 s keepalive. */
export function connectPacket(c: RawCredentials): Buffer {
  return mqttPacket.generate({
    cmd: "connect",
    protocolId: "MQTT",
    protocolVersion: 4,
    clean: c.clean ?? true,
    keepalive: 300,
    clientId: c.clientId,
    ...(c.username !== undefined ? { username: c.username } : {}),
    ...(c.password !== undefined ? { password: Buffer.from(c.password) } : {}),
  });
}

/**
 * A device resuming its persistent session (CONNECT with clean session 0) that waits for one command without
 * subscribing: resolves with its CONNACK (code, session present, ms after `started`) and when the command came (ms
 * after `started`; undefined when none came within `timeoutMs`), once it acknowledged the command and closed.
 */
export function rawResume(port: number, c: RawCredentials, started: number, timeoutMs: number) {
  return new Promise<{ code: number; present: boolean; connackMs: number; commandMs: number | undefined }>(
    (resolve) => {
      const socket = netConnect(port, "127.0.0.1");
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      const got = { code: -1, present: false, connackMs: 0, commandMs: undefined as number | undefined };
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      };
      const timer = setTimeout(done, timeoutMs);
      parser.on("packet", (p) => {
        if (p.cmd === "connack") {
          got.code = p.returnCode ?? -1;
          got.present = p.sessionPresent;
          got.connackMs = performance.now() - started;
          if (p.returnCode !== 0) done();
        } else if (p.cmd === "publish") {
          got.commandMs = performance.now() - started;
          // Ended after the PUBACK is written: the command is delivered, not given back.
          socket.end(mqttPacket.generate({ cmd: "puback", messageId: p.messageId! }), done);
        }
      });
      socket.on("data", (b) => parser.parse(b));
      socket.on("error", done);
      socket.on("close", done);
      socket.on("connect", () => socket.write(connectPacket({ ...c, clean: false })));
    },
  );
}
