import { z } from "zod";
import { fail, getDevice, getDeviceByDeviceId } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { codeField, intField } from "../params.js";
import { ApiRouter } from "../router.js";

/** MQTT-style topic a command may go to: relative, no wildcards, no empty levels at the ends. */
const topic = z.string().regex(/^[^/#+\u0000][^#+\u0000]{0,199}$/, "a relative topic without wildcards");

const publishBody = z.object({
  deviceID: z.string().min(1, "required"),
  deviceIntID: intField.optional(),
  payload: z.string().max(256 * 1024, "at most 256 KiB"),
  topic: topic.optional(),
  /** 1 (default): the device must acknowledge; 0: fire and forget. */
  qos: codeField([0, 1]).optional(),
});

/**
 * `POST /device_publish`: records a control log and sends the command to the
 * device's adapter. Answers 201 `{publishStatus}` with the status now (as the
 * spec's digit string): "1" issued, "0" failed (device not connected).
 */
export function publishRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Commands").post("/device_publish", { summary: "Send a command to a device", body: publishBody }, async (c, { body }) => {
    const caller = c.get("caller");
    const device = body.deviceIntID !== undefined
      ? await getDevice(deps.store.db, caller, body.deviceIntID)
      : await getDeviceByDeviceId(deps.store.db, caller, body.deviceID);
    if (device.deviceId !== body.deviceID) throw fail.form({ deviceIntID: "is not the device named by deviceID" });
    const r = await deps.commands.publish(caller, { deviceIntId: device.id, topic: body.topic, payload: body.payload, qos: (body.qos ?? 1) as 0 | 1 });
    return { publishStatus: String(r.publishStatus), controlLogIntID: r.id };
  }).app;
}
