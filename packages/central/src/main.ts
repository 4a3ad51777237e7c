import pino from "pino";
import { runMain, stopOnSignals } from "@iot/config";
import { readCentralConfig } from "./config.js";
import { startCentral } from "./central.js";

runMain("central", async () => {
  const signals = stopOnSignals("central");
  const config = readCentralConfig(process.env);
  const logger = pino({ name: "central", level: config.logLevel }, pino.destination(2));
  const central = await startCentral(config, logger);
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
