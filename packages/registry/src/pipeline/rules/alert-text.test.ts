import { describe, expect, it } from "vitest";
import { alertText, MAX_LISTED_MEMBERS } from "./alert-text.js";
import { pointRule } from "./fixtures.js";

describe("alertText", () => {
  const temp = pointRule({ dataPointName: "Temperature", unitSymbol: "°C" });

  it("names an upper limit breach and says the value and limit with the unit", () => {
    expect(alertText(temp, { rule: "upperLimit", limit: 30, measured: 31.5, severity: 2 })).toEqual({
      alertName: "Temperature above upper limit",
      alertContent: "Temperature is 31.5 °C, above the upper limit of 30 °C.",
    });
  });

  it("names a lower limit breach and says the value and limit with the unit", () => {
    expect(alertText(temp, { rule: "lowerLimit", limit: -10, measured: -11, severity: 2 })).toEqual({
      alertName: "Temperature below lower limit",
      alertContent: "Temperature is -11 °C, below the lower limit of -10 °C.",
    });
  });

  it("leaves the unit out when the point has none", () => {
    const bare = pointRule({ dataPointName: "Count", unitSymbol: " " });
    expect(alertText(bare, { rule: "upperLimit", limit: 5, measured: 6, severity: 2 }).alertContent).toBe(
      "Count is 6, above the upper limit of 5.",
    );
  });

  it("says a fault value, quoting text", () => {
    const err = pointRule({ dataPointName: "Pump", pointDataType: 4 });
    expect(alertText(err, { rule: "fault", limit: "1", measured: 1, severity: 1 })).toEqual({
      alertName: "Pump reports a fault",
      alertContent: "Pump reports its fault value 1.",
    });
    expect(alertText(err, { rule: "fault", limit: "E42", measured: "E42", severity: 1 }).alertContent).toBe(
      'Pump reports its fault value "E42".',
    );
  });

  it("lists the allowed values of an enum breach", () => {
    const mode = pointRule({ dataPointName: "Mode", pointDataType: 3 });
    expect(alertText(mode, { rule: "enum", limit: ["auto", "manual"], measured: "off", severity: 3 })).toEqual({
      alertName: "Mode outside its allowed values",
      alertContent: 'Mode is "off", which is not one of its allowed values auto, manual.',
    });
  });

  it("lists at most ten allowed values and counts the others", () => {
    const members = Array.from({ length: MAX_LISTED_MEMBERS + 3 }, (_, i) => String(i));
    const text = alertText(pointRule({ dataPointName: "Level" }), {
      rule: "enum",
      limit: members,
      measured: 99,
      severity: 3,
    }).alertContent;
    expect(text).toBe(
      `Level is 99, which is not one of its allowed values ${members.slice(0, 10).join(", ")} and 3 more.`,
    );
  });

  it("falls back to the dataPointID when the point's name is blank", () => {
    const p = pointRule({ dataPointName: "", dataPointId: "t1" });
    expect(alertText(p, { rule: "upperLimit", limit: 1, measured: 2, severity: 2 }).alertName).toBe(
      "t1 above upper limit",
    );
  });
});
