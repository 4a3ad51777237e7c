import pino from "pino";
import { runMain } from "@iot/config";
import { readCentralConfig } from "./config.js";
import { startCentral } from "./central.js";

runMain("central", async () => {
  const config = readCentralConfig(process.env);
  const logger = pino({ name: "central", level: config.logLevel }, pino.destination(2));
  const central = await startCentral(config, logger);
  const b = central.bootstrap;
  if (b.created) {
    process.stdout.write(`Created tenant ${b.tenantId} with administrator "${b.username}".\n`);
    if (b.generatedPassword) process.stdout.write(`Generated password (shown once, set IOT_ADMIN_PASSWORD to choose one): ${b.generatedPassword}\n`);
  }
  process.stdout.write(`READY central api=http://${config.apiHost}:${central.apiPort} grpc=${config.grpcHost}:${central.grpcPort}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    central.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
});
