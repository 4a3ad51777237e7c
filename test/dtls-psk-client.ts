import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { vector } from "../packages/dtls/src/bytes.js";
import { type Extension, ExtensionType } from "../packages/dtls/src/messages.js";
import { PskTestClient } from "../packages/dtls/src/psk-client.test-kit.js";

/** DTLS content type application_data (RFC 5246 §6.2.1). */
const APPLICATION_DATA = 23;

/**
 * A DTLS 1.2 PSK client (TLS_PSK_WITH_AES_128_CCM_8) on a real UDP socket, built on the dtls package's test client:
 * for a device that holds its session and answers the server's requests (an LwM2M client simulator), which libcoap's
 * coap-client cannot do. Handshakes once; then `send` encrypts a datagram and `onData` gets each decrypted one.
 */
export class DtlsPskClient {
  private socket: Socket = createSocket("udp4");
  private readonly client: PskTestClient;
  private listener: ((data: Buffer) => void) | undefined;

  private constructor(
    private readonly host: string,
    private readonly port: number,
    connectionId: Buffer | undefined,
  ) {
    const extensions: Extension[] = [{ type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) }];
    if (connectionId) extensions.push({ type: ExtensionType.connectionId, data: vector(1, connectionId) });
    this.client = new PskTestClient([0xc0a8], extensions);
  }

  /**
   * Connects to `host:port` with `identity` and `key`; rejects when the handshake does not complete in 5 s.
   * `connectionId`: offers RFC 9146 with this ID for the server's records; the client's records then carry the
   * server's ID from epoch 1 on, so the session survives {@link move}.
   */
  static async connect(
    host: string,
    port: number,
    identity: string,
    key: Buffer,
    options: { connectionId?: Buffer } = {},
  ): Promise<DtlsPskClient> {
    const c = new DtlsPskClient(host, port, options.connectionId);
    await new Promise<void>((resolve) => c.socket.bind(0, "127.0.0.1", resolve));
    const ask = async (datagram: Buffer): Promise<Buffer> => {
      const answer = once(c.socket, "message", { signal: AbortSignal.timeout(5000) });
      c.socket.send(datagram, port, host);
      return (await answer)[0] as Buffer;
    };
    const cookie = c.client.cookieOf(await ask(c.client.hello()));
    c.client.serverFlight([await ask(c.client.hello(cookie))]);
    await ask(c.client.keyExchange(identity, key));
    c.listen();
    return c;
  }

  private listen(): void {
    this.socket.on("message", (datagram: Buffer) => {
      for (const r of this.client.open(datagram)) if (r.type === APPLICATION_DATA) this.listener?.(r.plaintext);
    });
  }

  /** The server's connection ID for this session (RFC 9146), when it gave one. */
  get serverConnectionId(): Buffer | undefined {
    return this.client.serverCid;
  }

  /**
   * Goes on from a new UDP socket (another source port, as after a NAT rebinding) with the same session; the old
   * socket is closed, so nothing sent to the old address arrives.
   */
  async move(): Promise<void> {
    const next = createSocket("udp4");
    await new Promise<void>((resolve) => next.bind(0, "127.0.0.1", resolve));
    this.socket.close();
    this.socket = next;
    this.listen();
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
