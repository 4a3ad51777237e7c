/** `pnpm iot …`: the operator CLI (see cli.ts); Ctrl-C ends `events --follow`. */
import { runCli } from "./cli.js";

// A reader that stops early (`iot export | head`) closes the pipe: what is left to print has no reader, and that is
// no failure. Without this handler Node throws the write's EPIPE as an unhandled 'error' event, with a stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
  process.exit(0);
});

const stop = new AbortController();
process.on("SIGINT", () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), { signal: stop.signal });
