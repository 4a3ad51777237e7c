import { reachable } from "../scripts/fleet.js";
import type { TestFleet } from "./helpers.js";

/**
 * Commands the fleet's LoRaWAN adapter holds for class A devices until their next uplink, from its metrics. Throws
 * when the metric is missing, so a renamed label fails the test instead of comparing NaN with NaN.
 */
export async function pendingLoraCommands(t: TestFleet): Promise<number> {
  const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
  const text = await (await fetch(reachable(adapter.urls.metrics!))).text();
  const m = /^iot_adapter_commands_pending\{protocol="lora"\} (\d+)/m.exec(text);
  if (!m) throw new Error('no iot_adapter_commands_pending{protocol="lora"} in the LoRaWAN adapter\'s metrics');
  return Number(m[1]);
}
