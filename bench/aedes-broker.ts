/**
 * A bare aedes broker in a process of its own, for baselines whose devices would not fit in the benchmark's process
 * beside their broker (one process holds at most `ulimit -n` sockets: 10,000 devices are 20,000 sockets when the
 * broker shares the process). Started by `forkAedes`; tells its port over IPC, stops when told to or when its parent
 * goes.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Aedes } from "aedes";

/** Forks the broker; resolves with its port and a way to stop it. */
export async function forkAedes(): Promise<{ port: number; close: () => Promise<void> }> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--import", "tsx"] });
  const [message] = (await once(child, "message")) as [{ port: number }];
  return {
    port: message.port,
    close: async () => {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

if (process.argv.includes("--serve")) {
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on("disconnect", () => process.exit(0));
}
