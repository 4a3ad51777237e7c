/**
 * The simulated devices of bench:lwm2m-firmware, in a process of their own so that the bench's memory figure is the
 * LwM2M server's alone: N LwM2M client simulators with firmware 1.0.0, each on its own UDP socket, registered with
 * the server at `127.0.0.1:<port>`. Messages (IPC): sends `{registered: true}` once all are, answers `{versions}` (how
 * many report 2.0.0 in /3/0/3) to `{count: true}`, and ends on `{stop: true}`.
 *
 *   (forked by bench/lwm2m-firmware.ts with: <port> <devices> <maxBodyBytes>)
 */
import pino from "pino";
import { createMessageLayer, listenUdp, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator } from "@iot/adapter-lwm2m";

const [port, devices, maxBodyBytes] = process.argv.slice(2).map(Number) as [number, number, number];
const logger = pino({ level: "silent" });
/** The same IMEIs as bench/lwm2m-firmware.ts gives its fake registry. */
const benchImei = (i: number) => String(353_000_000_000_000 + i);

const sims: Lwm2mClientSimulator[] = [];
const closers: (() => Promise<void>)[] = [];
for (let i = 0; i < devices; i++) {
  const sim = new Lwm2mClientSimulator({ endpoint: benchImei(i), lifetime: 3600, firmwareVersion: "1.0.0" });
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(sim.handler, {
    logger,
    maxBodyBytes,
    maxTransfers: Math.max(64, devices),
    send: (d, p) => udp?.send(d, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {}, receiveBufferBytes: 4 * 1024 * 1024 });
  sim.attach(layer, { address: "127.0.0.1", port });
  sims.push(sim);
  closers.push(async () => (layer.close(), await udp.close()));
}
await Promise.all(sims.map((s) => s.register()));
process.send!({ registered: true });
process.on("message", (m: { count?: true; stop?: true }) => {
  if (m.count)
    process.send!({
      versions: sims.filter((s) => (s.resources.get("/3/0/3") as { value: string }).value === "2.0.0").length,
    });
  if (m.stop) void Promise.all(closers.map((c) => c())).then(() => process.exit(0));
});
