import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeSettings } from "@iot/config";
import { centralSettings } from "@iot/central";
import { adapterSettings } from "@iot/adapter-core";
import { mqttAdapterSettings } from "@iot/adapter-mqtt";
import { httpAdapterSettings } from "@iot/adapter-http";
import { coapAdapterSettings } from "@iot/adapter-coap";
import { modbusAdapterSettings } from "@iot/adapter-modbus";
import { lwm2mAdapterSettings } from "@iot/adapter-lwm2m";
import { lorawanAdapterSettings } from "@iot/adapter-lorawan";

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "utf8");

describe("README", () => {
  it("starts with the two quick-start commands: install and start, and test", () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.trim().split("\n");
    expect(block).toEqual(["npx --yes pnpm@10.34.8 install && npm start", "npx --yes pnpm@10.34.8 test"]);
  });

  it.each([
    ["central node", centralSettings],
    ["adapters", adapterSettings],
    ["MQTT adapter", mqttAdapterSettings],
    ["HTTP adapter", httpAdapterSettings],
    ["CoAP adapter", coapAdapterSettings],
    ["Modbus adapter", modbusAdapterSettings],
    ["LwM2M adapter", lwm2mAdapterSettings],
    ["LoRaWAN adapter", lorawanAdapterSettings],
  ])("documents every setting of the %s with its default", (_name, settings) => {
    for (const [env, fallback] of describeSettings(settings)) {
      const row = readme.split("\n").find((l) => l.startsWith(`| \`${env}\` |`));
      expect(row, env).toBeDefined();
      if (fallback !== "(unset)") expect(row, env).toContain(`\`${fallback}\``);
    }
  });
});
