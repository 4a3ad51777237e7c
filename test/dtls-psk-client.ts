import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { PskTestClient } from "../packages/dtls/src/psk-client.test-kit.js";

/** DTLS content type application_data (RFC 5246 §6.2.1). */
const APPLICATION_DATA = 23;

/**
 * A DTLS 1.2 PSK client (TLS_PSK_WITH_AES_128_CCM_8) on a real UDP socket, built on the dtls package's test client:
 * for a device that holds its session and answers the server's requests (an LwM2M client simulator), which libcoap's
 * coap-client cannot do. Handshakes once; then `send` encrypts a datagram and `onData` gets each decrypted one.
 */
export class DtlsPskClient {
  private readonly socket: Socket = createSocket("udp4");
  private readonly client = new PskTestClient();
  private listener: ((data: Buffer) => void) | undefined;

  private constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Connects to `host:port` with `identity` and `key`; rejects when the handshake does not complete in 5 s. */
  static async connect(host: string, port: number, identity: string, key: Buffer): Promise<DtlsPskClient> {
    const c = new DtlsPskClient(host, port);
    await new Promise<void>((resolve) => c.socket.bind(0, "127.0.0.1", resolve));
    const ask = async (datagram: Buffer): Promise<Buffer> => {
      const answer = once(c.socket, "message", { signal: AbortSignal.timeout(5000) });
      c.socket.send(datagram, port, host);
      return (await answer)[0] as Buffer;
    };
    const cookie = c.client.cookieOf(await ask(c.client.hello()));
    c.client.serverFlight([await ask(c.client.hello(cookie))]);
    await ask(c.client.keyExchange(identity, key));
    c.socket.on("message", (datagram: Buffer) => {
      for (const r of c.client.open(datagram)) if (r.type === APPLICATION_DATA) c.listener?.(r.plaintext);
    });
    return c;
  }

  /** Where the client's datagrams come from, as the server sees it. */
  get localPort(): number {
    return this.socket.address().port;
  }

  send(plaintext: Buffer): void {
    this.socket.send(this.client.record(APPLICATION_DATA, 1, plaintext), this.port, this.host);
  }

  onData(listener: (data: Buffer) => void): void {
    this.listener = listener;
  }

  close(): void {
    this.socket.close();
  }
}
