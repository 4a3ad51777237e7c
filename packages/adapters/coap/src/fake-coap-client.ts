import { EventEmitter, once } from "node:events";
import { generate, parse, type ParsedPacket } from "coap-packet";
import { decodeBlock, encodeBlock, type BlockOption } from "./blockwise/block-option.js";
import type { Peer } from "./message-layer.js";
import { decodeUint, encodeUint } from "./uint.js";

/** What a test request carries besides its code and path. */
export interface FakeRequestOptions {
  /** Uri-Query options; default the test device's credentials. */
  readonly query?: readonly string[];
  readonly payload?: string | Buffer;
  readonly observe?: number;
  readonly confirmable?: boolean;
  readonly token?: string;
  readonly messageId?: number;
  readonly block1?: BlockOption;
  readonly block2?: BlockOption;
  readonly size1?: number;
  readonly contentFormat?: number;
  readonly accept?: number;
}

/**
 * A CoAP client for tests that talks to a message layer (or adapter) in memory through its `handle`, as one peer:
 * it builds requests with coap-packet and keeps every datagram answered to it.
 */
export class FakeCoapClient {
  /** Datagrams sent to this client, parsed, not yet taken by `next`. */
  readonly inbox: ParsedPacket[] = [];
  private readonly arrivals = new EventEmitter();
  private mid = 1;

  constructor(
    private readonly target: { handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void },
    readonly peer: Peer = { address: "127.0.0.1", port: 40_000 },
  ) {}

  /** Hands a raw datagram to the target. */
  send(datagram: Buffer): void {
    this.target.handle(datagram, this.peer, (answer) => {
      this.inbox.push(parse(answer));
      this.arrivals.emit("datagram");
    });
  }

  /** Builds a request datagram (message id: the next one unless given). */
  build(code: string, path: string, opts: FakeRequestOptions = {}): Buffer {
    const token = Buffer.from(opts.token ?? `t${this.mid}`);
    const options = [
      ...(opts.observe !== undefined ? [{ name: "Observe", value: encodeUint(opts.observe) }] : []),
      ...path
        .split("/")
        .filter(Boolean)
        .map((p) => ({ name: "Uri-Path", value: Buffer.from(p) })),
      ...(opts.query ?? ["c=dev-1", "u=u1", "p=t1"]).map((q) => ({ name: "Uri-Query", value: Buffer.from(q) })),
      ...(opts.block2 ? [{ name: "Block2", value: encodeBlock(opts.block2) }] : []),
      ...(opts.block1 ? [{ name: "Block1", value: encodeBlock(opts.block1) }] : []),
      ...(opts.size1 !== undefined ? [{ name: "Size1", value: encodeUint(opts.size1) }] : []),
      ...(opts.contentFormat !== undefined ? [{ name: "Content-Format", value: encodeUint(opts.contentFormat) }] : []),
      ...(opts.accept !== undefined ? [{ name: "Accept", value: encodeUint(opts.accept) }] : []),
    ];
    return generate({
      code,
      messageId: opts.messageId ?? this.mid++,
      token,
      confirmable: opts.confirmable ?? true,
      options,
      payload: Buffer.from(opts.payload ?? ""),
    });
  }

  /** Sends a request and resolves with the answer carrying its token. */
  request(code: string, path: string, opts: FakeRequestOptions = {}): Promise<ParsedPacket> {
    const datagram = this.build(code, path, opts);
    const token = parse(datagram).token;
    this.send(datagram);
    return this.next((p) => p.token.equals(token) && !p.code.startsWith("0."));
  }

  /** ACKs (or RSTs) a confirmable message the client got. */
  answer(messageId: number, kind: "ack" | "reset" = "ack"): void {
    this.send(generate({ code: "0.00", messageId, [kind]: true, token: Buffer.alloc(0) }));
  }

  /** Resolves with (and takes) the first datagram that matches, waiting up to `timeoutMs`. */
  async next(match: (p: ParsedPacket) => boolean, timeoutMs = 2000): Promise<ParsedPacket> {
    const signal = AbortSignal.timeout(timeoutMs);
    for (;;) {
      const i = this.inbox.findIndex(match);
      if (i >= 0) return this.inbox.splice(i, 1)[0]!;
      await once(this.arrivals, "datagram", { signal }).catch(() => {
        throw new Error("no answer");
      });
    }
  }
}

/** The value of option `name` in a parsed packet, as a uint; undefined when absent. */
export function uintOption(packet: ParsedPacket, name: string): number | undefined {
  const option = packet.options.find((o) => o.name === name);
  return option && decodeUint(option.value);
}

/** The Block1 or Block2 option of a parsed packet; undefined when absent. */
export function blockOption(packet: ParsedPacket, name: "Block1" | "Block2"): BlockOption | undefined {
  const option = packet.options.find((o) => o.name === name);
  const block = option && decodeBlock(option.value);
  if (typeof block === "string") throw new Error(`bad ${name}: ${block}`);
  return block;
}
