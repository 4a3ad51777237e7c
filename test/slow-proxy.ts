/**
 * A TCP proxy that delays every chunk by `delayMs` in each direction: a slow database (or network to it) for the
 * fault tests, put between the central node and PostgreSQL. Chunks keep their order (one delay for all).
 */
import { createServer, connect, type AddressInfo, type Socket } from "node:net";

export interface SlowProxy {
  readonly port: number;
  /** Delay added to each chunk from now on, ms (0: none). */
  delayMs: number;
  close(): Promise<void>;
}

/** Listens on a free loopback port and forwards to `target` (host:port). */
export async function startSlowProxy(targetPort: number, delayMs = 0): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  const state = { delayMs };
  const pipe = (from: Socket, to: Socket) =>
    from.on("data", (chunk) => {
      if (state.delayMs === 0) to.write(chunk);
      else setTimeout(() => to.writable && to.write(chunk), state.delayMs);
    });
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
