/**
 * The broker bench:mqtt measures the fleet against: one already answering at the given address (the machine's
 * Mosquitto), else a bare aedes broker in the benchmark's process. Either stores nothing and authenticates nobody.
 */
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import { connect } from "./mqtt-load.js";

/** A broker for the baseline: the given address when something answers there, else bare aedes on a free port. */
export async function baselineBroker(
  baselineUrl: string,
): Promise<{ url: string; label: string; close: () => Promise<void> }> {
  const probe = await connect(baselineUrl).catch(() => undefined);
  if (probe) {
    await probe.endAsync();
    return { url: baselineUrl, label: `broker at ${baselineUrl}`, close: async () => {} };
  }
  const broker = await Aedes.createBroker();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    label: "bare aedes (in process)",
    close: () => new Promise<void>((resolve) => server.close(() => broker.close(() => resolve()))),
  };
}
