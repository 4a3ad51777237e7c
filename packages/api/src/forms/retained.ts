import { z } from "zod";
import type { RetainedMessage } from "@iot/registry";
import { f, parseJson } from "./common.js";
import { formatDate } from "./dates.js";
import { payloadText } from "./logs.js";

/** A retained message record (the same in both forms). */
export const retainedRecord = z.object({
  direction: z.enum(["command", "uplink"]).describe("command: the device's desired state; uplink: its last report"),
  topic: f.str.describe("relative to the device's namespace"),
  payload: f.str.describe("UTF-8 text, or base64 when the bytes are not UTF-8"),
  qos: z.enum(["0", "1", "2"]),
  properties: f.json.describe("MQTT 5.0 PUBLISH properties kept with it, or null"),
  controlLogIntID: f.intN.describe("the command that set a retained command; null for an uplink"),
  updateAt: f.date,
});

/** Retained message record; `qos` is a digit string as subscription records have it. */
export function retained(m: RetainedMessage): z.output<typeof retainedRecord> {
  return {
    direction: m.direction,
    topic: m.topic,
    payload: payloadText(m.payload),
    qos: String(m.qos) as "0" | "1" | "2",
    properties: parseJson(m.properties),
    controlLogIntID: m.controlLogIntId,
    updateAt: formatDate(m.updateAt),
  };
}
