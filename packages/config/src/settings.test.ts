import { describe, expect, it } from "vitest";
import { ConfigError, describeSettings, flag, list, oneOf, port, readConfig, text } from "./settings.js";
import { listenError } from "./startup.js";

const settings = {
  apiPort: port("IOT_API_PORT", 8080, "REST port"),
  form: oneOf("IOT_API_FORM", "1", "record form", ["1", "2"]),
  url: text("IOT_DATABASE_URL", undefined, "database"),
  debug: flag("IOT_DEBUG", false, "debug"),
};

describe("readConfig", () => {
  it("applies defaults for unset and empty variables", () => {
    const c = readConfig(settings, { IOT_API_FORM: "" });
    expect(c).toEqual({ apiPort: 8080, form: "1", url: undefined, debug: false });
  });

  it("parses the variables it is given", () => {
    const c = readConfig(settings, {
      IOT_API_PORT: "9000",
      IOT_API_FORM: "2",
      IOT_DATABASE_URL: "postgres://x",
      IOT_DEBUG: "yes",
    });
    expect(c).toEqual({ apiPort: 9000, form: "2", url: "postgres://x", debug: true });
  });

  it("rejects a bad port with one line naming the variable", () => {
    expect(() => readConfig(settings, { IOT_API_PORT: "80a" })).toThrow(ConfigError);
    expect(() => readConfig(settings, { IOT_API_PORT: "70000" })).toThrow(
      /^IOT_API_PORT="70000": must be a whole number from 0 to 65535$/,
    );
  });

  it("rejects a value outside a closed list", () => {
    expect(() => readConfig(settings, { IOT_API_FORM: "3" })).toThrow(/IOT_API_FORM="3": must be one of 1, 2/);
  });
});

describe("list settings", () => {
  const urls = { urls: list("IOT_REGISTRY_URL", ["127.0.0.1:50051"], "registries") };

  it("splits a comma-separated value into its trimmed items, in order", () => {
    expect(readConfig(urls, { IOT_REGISTRY_URL: "a:1, b:2 ,c:3" }).urls).toEqual(["a:1", "b:2", "c:3"]);
    expect(readConfig(urls, {}).urls).toEqual(["127.0.0.1:50051"]);
  });

  it("refuses an empty item with one line naming the variable", () => {
    expect(() => readConfig(urls, { IOT_REGISTRY_URL: "a:1,,b:2" })).toThrow(
      /^IOT_REGISTRY_URL="a:1,,b:2": must be a comma-separated list without empty items$/,
    );
  });

  it("documents its default as the comma-separated text a user would write", () => {
    expect(describeSettings(urls)[0]![1]).toBe("127.0.0.1:50051");
  });
});

describe("listenError", () => {
  it("names the port and its setting when the port is taken", () => {
    const err = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
    expect(listenError(err, "mqtt", 1883, "IOT_MQTT_PORT").message).toBe(
      "mqtt: port 1883 is already in use (set IOT_MQTT_PORT to another port)",
    );
  });
});
