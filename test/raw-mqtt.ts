import { connect as netConnect, type Socket } from "node:net";
import mqttPacket from "mqtt-packet";

/** What a device sends in CONNECT. */
export interface RawCredentials {
  readonly clientId: string;
  readonly username?: string;
  readonly password?: string;
}

/**
 * Opens a raw TCP connection, sends one MQTT 3.1.1 CONNECT and resolves with the CONNACK return code (-1 when the
 * connection ended without one) and the socket, left open. Cheaper than a client library, so storms of thousands of
 * devices fit in one process.
 */
export function rawConnect(port: number, c: RawCredentials): Promise<{ code: number; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, "127.0.0.1");
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    let settled = false;
    const settle = (code: number) => {
      if (settled) return;
      settled = true;
      resolve({ code, socket });
    };
    parser.on("packet", (p) => p.cmd === "connack" && settle(p.returnCode ?? -1));
    socket.on("data", (b) => parser.parse(b));
    socket.on("error", () => settle(-1));
    socket.on("close", () => settle(-1));
    socket.on("connect", () =>
      socket.write(
        mqttPacket.generate({
          cmd: "connect",
          protocolId: "MQTT",
          protocolVersion: 4,
          clean: true,
          keepalive: 300,
          clientId: c.clientId,
          ...(c.username !== undefined ? { username: c.username } : {}),
          ...(c.password !== undefined ? { password: Buffer.from(c.password) } : {}),
        }),
      ),
    );
  });
}

/** CONNACK return codes of a storm, counted: `{ "0": 1998, "3": 2 }`. */
export function countCodes(results: readonly { code: number }[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const r of results) codes[r.code] = (codes[r.code] ?? 0) + 1;
  return codes;
}
