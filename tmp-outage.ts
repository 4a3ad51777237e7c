import { startRestartableFleet, killHard, watchLog } from "./test/restartable-fleet.js";
const f = await startRestartableFleet({ IOT_LOG_LEVEL: "debug" }, ["mqtt-adapter", "coap-adapter"]);
const logs = [...f.adapters.values()].map((p) => ({ name: p.name, log: watchLog(p) }));
await killHard(f.central);
await new Promise((r) => setTimeout(r, 8000));
for (const { name, log } of logs) {
  const lines = log().split("\n").filter(Boolean);
  console.log(name, lines.length);
  for (const l of lines.slice(0, 40)) console.log("  ", l.slice(0, 260));
}
await f.close();
process.exit(0);
