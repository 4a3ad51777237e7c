/**
 * Test support (not exported), shared with the end-to-end tests in test/:
 * how a connection attempt that must be refused ended.
 */
import mqtt, { type IClientOptions } from "mqtt";

/**
 * The error a refused MQTT connection attempt ended with: a CONNACK refusal
 * (`code` 5, 3), a TLS error, or "closed before CONNACK" (a TLS 1.3 client
 * learns that the server refused its certificate only when the connection
 * closes). Rejects if the connection was accepted.
 */
export function refusal(url: string, options: IClientOptions): Promise<Error & { code?: number | string }> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...options });
    const done = (err: Error) => {
      client.end(true);
      resolve(err);
    };
    client.once("connect", () => {
      client.end(true);
      reject(new Error(`the connection to ${url} was accepted`));
    });
    client.once("error", done);
    client.once("close", () => done(new Error("closed before CONNACK")));
  });
}
