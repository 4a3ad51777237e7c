import { describe, expect, it } from "vitest";
import { brokerAddresses, readCentralConfig } from "./config.js";

describe("brokerAddresses", () => {
  it("advertises the public host with the MQTT adapter's ports, and nothing for a listener turned off with -1", () => {
    const c = readCentralConfig({ IOT_PUBLIC_HOST: "iot.example.com", IOT_MQTT_PORT: "-1", IOT_MQTTSS_PORT: "18884" });
    expect(brokerAddresses(c)).toMatchObject({
      mqttBroker: "",
      mqttsBroker: "iot.example.com:8883",
      mqttssBroker: "iot.example.com:18884",
    });
  });

  it("advertises the CoAP over DTLS addresses (PSK, certificates) the CoAP adapter listens on, and none when off", () => {
    const defaults = brokerAddresses(readCentralConfig({ IOT_PUBLIC_HOST: "iot.example.com" }));
    expect(defaults).toMatchObject({
      coapBroker: "iot.example.com:5683",
      coapsBroker: "iot.example.com:5684",
      coapssBroker: "iot.example.com:5685",
    });
    const off = brokerAddresses(
      readCentralConfig({ IOT_PUBLIC_HOST: "h", IOT_COAPS_PORT: "-1", IOT_COAPSS_PORT: "-1" }),
    );
    expect(off).toMatchObject({ coapsBroker: "", coapssBroker: "" });
  });

  it("refuses ports below -1 with one line naming the variable", () => {
    expect(() => readCentralConfig({ IOT_MQTTS_PORT: "-2" })).toThrow(
      'IOT_MQTTS_PORT="-2": must be a whole number from -1 to 65535',
    );
  });
});

describe("IOT_RETENTION_DAYS", () => {
  it("keeps 90 days unless told otherwise, and takes 0 as keep forever", () => {
    expect(readCentralConfig({}).retentionDays).toBe(90);
    expect(readCentralConfig({ IOT_RETENTION_DAYS: "0" }).retentionDays).toBe(0);
  });

  it("refuses negative, fractional and century-long periods with one line naming the variable", () => {
    for (const raw of ["-1", "1.5", "36501"])
      expect(() => readCentralConfig({ IOT_RETENTION_DAYS: raw })).toThrow(
        `IOT_RETENTION_DAYS="${raw}": must be a whole number from 0 to 36500`,
      );
  });
});

describe("IOT_NODE_ID", () => {
  it("is unset by default (the node generates one) and takes letters, digits, _ and -", () => {
    expect(readCentralConfig({}).nodeId).toBeUndefined();
    expect(readCentralConfig({ IOT_NODE_ID: "central-2_eu" }).nodeId).toBe("central-2_eu");
  });

  it("refuses an id that cannot name a NOTIFY channel with one line naming the variable", () => {
    for (const raw of ["has space", "a;drop", "x".repeat(41)])
      expect(() => readCentralConfig({ IOT_NODE_ID: raw })).toThrow(
        `IOT_NODE_ID="${raw}": must be 1 to 40 letters, digits, _ or -`,
      );
  });
});

describe("IOT_DATABASE_READ_URL", () => {
  it("takes one or more comma-separated postgres:// URLs, and none by default", () => {
    expect(readCentralConfig({}).databaseReadUrls).toBeUndefined();
    const c = readCentralConfig({ IOT_DATABASE_READ_URL: "postgres://r1/iot, postgresql://u:pw@r2:5433/iot" });
    expect(c.databaseReadUrls).toEqual(["postgres://r1/iot", "postgresql://u:pw@r2:5433/iot"]);
    expect(c.databaseReadMaxLag).toBe(30);
  });

  it("refuses another scheme with one line naming the variable and the item, never echoing a password", () => {
    const read = () => readCentralConfig({ IOT_DATABASE_READ_URL: "postgres://u:secret@r1/iot,mysql://u:secret@r2" });
    expect(read).toThrow("IOT_DATABASE_READ_URL: item 2 of 2 is not a postgres:// URL");
    expect(read).not.toThrow(/secret/);
  });
});
