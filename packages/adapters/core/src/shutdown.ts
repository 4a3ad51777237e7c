import type { Logger } from "pino";

/**
 * Runs `stop` once on the first SIGINT or SIGTERM and exits 0 when it is done
 * (1 if it threw or took longer than `timeoutMs`); a second signal exits at once.
 */
export function exitOnSignals(stop: () => Promise<void>, log: Logger, timeoutMs = 10_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, "shutting down");
    setTimeout(() => {
      log.error({ timeoutMs }, "shutdown took too long");
      process.exit(1);
    }, timeoutMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
