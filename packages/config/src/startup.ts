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
  if (code === "EADDRINUSE")
    return new StartupError(`${what}: port ${port} is already in use (set ${env} to another port)`);
  if (code === "EACCES")
    return new StartupError(`${what}: no permission to listen on port ${port} (set ${env} to another port)`);
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
      process.stderr.write(
        `${name}: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    process.exit(1);
  });
}

/** Registers what a process does when asked to stop. */
export interface StopSignals {
  /** The stop work; if a signal already came during startup, it runs at once. */
  onStop(stop: () => Promise<void>): void;
}

/**
 * Installs SIGINT/SIGTERM handlers right away — call it first thing in main,
 * before the process announces itself, so a signal never meets Node's default
 * (kill) action. A signal during startup is kept until `onStop` is given.
 * Repeated signals (Ctrl-C reaches a launcher's children twice) are ignored;
 * the process exits 0 when stop resolves, 1 when it fails or exceeds `timeoutMs`.
 */
export function stopOnSignals(name: string, timeoutMs = 10_000): StopSignals {
  let stop: (() => Promise<void>) | undefined;
  let signalled = false;
  let running = false;
  const run = () => {
    if (running || !signalled || !stop) return;
    running = true;
    setTimeout(() => {
      process.stderr.write(`${name}: stopping took longer than ${timeoutMs} ms\n`);
      process.exit(1);
    }, timeoutMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${name}: stop failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  const onSignal = () => {
    signalled = true;
    run();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    onStop(fn) {
      stop = fn;
      run();
    },
  };
}
