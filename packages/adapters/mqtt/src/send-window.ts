import type { Client } from "aedes";
import { MAX_TIMER_MS } from "./ack-flow.js";

/** QoS 1/2 commands in flight to one connection, and those waiting for room, oldest first. */
interface Window {
  inFlight: number;
  readonly waiting: (() => void)[];
}

const windows = new WeakMap<Client, Window>();

/**
 * Waits for room to send one more QoS 1/2 command to `client`: at most its Receive Maximum (MQTT 5.0 §3.3.4, from
 * its CONNECT; aedes reads 65535 when absent, and for MQTT 3.1.1 devices) are in flight at once (MQTT-3.3.4-7), the
 * rest wait in order. Answers the function that gives the room back (call it once the command's flow ended), or
 * undefined when the connection closed or `expiresAtMs` (epoch ms, 0 = no limit) passed first.
 */
export function sendRoom(client: Client, expiresAtMs: number): Promise<(() => void) | undefined> {
  let window = windows.get(client);
  if (!window) windows.set(client, (window = { inFlight: 0, waiting: [] }));
  const w = window;
  const release = () => {
    w.inFlight--;
    w.waiting.shift()?.();
  };
  if (w.inFlight < client.receiveMaximum) {
    w.inFlight++;
    return Promise.resolve(release);
  }
  return new Promise((resolve) => {
    const done = (room: boolean) => {
      clearTimeout(timer);
      client.conn.off("close", gone);
      const at = w.waiting.indexOf(wake);
      if (at >= 0) w.waiting.splice(at, 1);
      resolve(room ? release : undefined);
    };
    const wake = () => {
      w.inFlight++;
      done(true);
    };
    const gone = () => done(false);
    const timer =
      expiresAtMs > 0 ? setTimeout(gone, Math.min(Math.max(expiresAtMs - Date.now(), 0), MAX_TIMER_MS)) : undefined;
    client.conn.once("close", gone);
    w.waiting.push(wake);
  });
}
