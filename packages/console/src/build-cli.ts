// `pnpm --filter @iot/console build` and the package's postinstall: build the console when its sources changed.
import { ensureConsoleBuilt } from "./console-build.js";

const started = Date.now();
if (await ensureConsoleBuilt()) process.stdout.write(`console built in ${Date.now() - started} ms\n`);
