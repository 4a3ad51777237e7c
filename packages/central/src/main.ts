import { isMainThread, parentPort, workerData } from "node:worker_threads";
import pino from "pino";
import { runMain, stopOnSignals } from "@iot/config";
import { PIPELINE_WORKER_ROLE, runPipelineWorker, type PipelineWorkerData } from "@iot/registry";
import { readCentralConfig } from "./config.js";
import { startCentral } from "./central.js";

// The data pipeline's worker thread starts from this module too (PipelineThread): it runs only the pipeline.
if (!isMainThread && (workerData as PipelineWorkerData | undefined)?.role === PIPELINE_WORKER_ROLE)
  await runPipelineWorker(workerData as PipelineWorkerData, parentPort!);
else runCentral();

function runCentral(): void {
  runMain("central", async () => {
    const signals = stopOnSignals("central");
    const config = readCentralConfig(process.env);
    const logger = pino({ name: "central", level: config.logLevel }, pino.destination(2));
    const central = await startCentral(config, logger, { pipelineWorkerEntry: workerEntry() });
    signals.onStop(async () => {
      logger.info("stopping");
      await central.stop();
    });
    const b = central.bootstrap;
    if (b.created) {
      process.stdout.write(`Created tenant ${b.tenantId} with administrator "${b.username}".\n`);
      if (b.generatedPassword)
        process.stdout.write(
          `Generated password (shown once, set IOT_ADMIN_PASSWORD to choose one): ${b.generatedPassword}\n`,
        );
    }
    process.stdout.write(
      `READY central api=http://${config.apiHost}:${central.apiPort} grpc=${config.grpcHost}:${central.grpcPort}\n`,
    );
  });
}

/**
 * The script this process runs, for the pipeline's worker to start from: the fleet's bundle (scripts/bundle-entry.ts)
 * is plain JavaScript a worker loads as it is. Run from the TypeScript sources (`pnpm central`, through tsx's loader,
 * which a worker thread does not inherit here), the pipeline stays on the event loop.
 */
function workerEntry(): string | undefined {
  const script = process.argv[1];
  return script !== undefined && /\.m?js$/.test(script) ? script : undefined;
}
