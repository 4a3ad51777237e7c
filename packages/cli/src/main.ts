/** `pnpm iot …`: the operator CLI (see cli.ts); Ctrl-C ends `events --follow`. */
import { runCli } from "./cli.js";

const stop = new AbortController();
process.on("SIGINT", () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), { signal: stop.signal });
