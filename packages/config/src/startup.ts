import { ConfigError } from "./settings.js";

/** An error a process cannot start with, already worded as one line for the operator. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/**
 * Words a failed `listen` as one line naming the port and the setting that
 * chose it; other errors pass through unchanged.
 */
export function listenError(err: unknown, what: string, port: number, env: string): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") return new StartupError(`${what}: port ${port} is already in use (set ${env} to another port)`);
  if (code === "EACCES") return new StartupError(`${what}: no permission to listen on port ${port} (set ${env} to another port)`);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Runs a process's main function; a configuration or startup error prints one
 * line and exits 1 instead of a stack trace.
 */
export function runMain(name: string, main: () => Promise<unknown>): void {
  main().catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof StartupError) {
      process.stderr.write(`${name}: ${err.message}\n`);
    } else {
      process.stderr.write(`${name}: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exit(1);
  });
}
