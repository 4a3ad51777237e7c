import { z } from "zod";
import { fail, groupOfCommand, type CommandProperties } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { codeField, intField } from "../params.js";
import { ApiRouter } from "../router.js";
import { taskLink } from "../forms/tasks.js";

/** MQTT-style topic a command may go to: relative, no wildcards, no empty levels at the ends. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what a topic must not contain
const topic = z.string().regex(/^[^/#+\u0000][^#+\u0000]{0,199}$/, "a relative topic without wildcards");

/** Most bytes of a command's user properties, as JSON text (what an MQTT 5.0 uplink keeps of its own, too). */
const MAX_USER_PROPERTIES_BYTES = 8192;

/** MQTT's UTF-8 strings may not hold NUL (MQTT-1.5.4-2). */
const noNul = (s: string) => !s.includes("\u0000");

/** An MQTT 5.0 string property of a command: UTF-8 text without NUL, 1 to `max` characters. */
const propertyText = (max: number) =>
  z.string().min(1, "required").max(max, `at most ${max} characters`).refine(noNul, "must not contain NUL");

/**
 * MQTT 5.0 PUBLISH properties a command may carry (our addition, docs/devices/mqtt.md "Command properties"): an MQTT
 * 5.0 device gets them on the command's PUBLISH, a 3.1.1 device and other protocols ignore them. A command with a
 * response topic and correlation data is settled by the device's answer (its payload becomes publishResult).
 */
const commandProperties = {
  /** name → value, or several values for one name, sent in order. */
  userProperties: z
    .record(z.string(), z.union([z.string(), z.array(z.string()).min(1, "at least one value")]))
    .refine((p) => Object.entries(p).every(([k, v]) => noNul(k) && [v].flat().every(noNul)), "must not contain NUL")
    .refine(
      (p) => Buffer.byteLength(JSON.stringify(p)) <= MAX_USER_PROPERTIES_BYTES,
      `at most ${MAX_USER_PROPERTIES_BYTES} bytes as JSON`,
    )
    .optional(),
  /** The payload's MIME type, e.g. `application/json`. */
  contentType: propertyText(256).optional(),
  /** 0: bytes, 1: UTF-8 text. */
  payloadFormatIndicator: codeField([0, 1]).optional(),
  /** Relative topic the device answers on (request/response). */
  responseTopic: topic.optional(),
  /** Sent as its UTF-8 bytes; the device's answer on the response topic repeats them. */
  correlationData: propertyText(256).optional(),
};

/**
 * Our addition (docs/devices/mqtt.md, "Retained messages"): 1 keeps the command as the device's desired state on its
 * topic, sent again (RETAIN=1) at each SUBSCRIBE that matches it until replaced; 1 with an empty payload clears it.
 * 0 (default): an ordinary command.
 */
const retainField = codeField([0, 1]).optional();

/** Body of `POST /device_publish` (scheduled device commands share its members). */
export const publishBody = z.strictObject({
  deviceID: z.string().min(1, "required"),
  deviceIntID: intField.optional(),
  /**
   * Opaque, or `{dataPointID: value}` checked against the product's JSON command streams (docs/data.md, "Commands
   * with data points"): FORM_INVALID names each bad member as `payload.<dataPointID>`.
   */
  payload: z.string().max(256 * 1024, "at most 256 KiB"),
  /** When omitted: the command stream's topic of a data point payload, else `inbox`. */
  topic: topic.optional(),
  /**
   * 1 (default): the device must acknowledge; 2: exactly once (MQTT QoS 2: PUBREC, PUBREL, PUBCOMP; other protocols
   * acknowledge it as they do 1); 0: fire and forget.
   */
  qos: codeField([0, 1, 2]).optional(),
  retain: retainField,
  ...commandProperties,
});

const groupPublishBody = z.strictObject({
  groupID: z.string().min(1, "required"),
  groupIntID: intField.optional(),
  payload: publishBody.shape.payload,
  /**
   * 0 (default): once, to the members connected now, no acknowledgement; 1: each member acknowledges, offline ones get
   * it on connect.
   */
  needAck: codeField([0, 1]).optional(),
  /**
   * Our addition: the QoS each member gets, 0, 1 or 2 (as `device_publish`'s); 1 or 2 is needAck 1, 0 is needAck 0.
   * When both are given they must agree.
   */
  qos: codeField([0, 1, 2]).optional(),
  retain: retainField,
  ...commandProperties,
});

/** The QoS of a group command: `qos` when given (needAck, if also given, must agree), else needAck (default 0). */
export function groupQos(body: { needAck?: number | undefined; qos?: number | undefined }): 0 | 1 | 2 {
  if (body.qos === undefined) return (body.needAck ?? 0) as 0 | 1;
  if (body.needAck !== undefined && body.needAck !== Math.min(body.qos, 1))
    throw fail.form({ qos: `disagrees with needAck ${body.needAck} (qos 0 is needAck 0, qos 1 or 2 is needAck 1)` });
  return body.qos as 0 | 1 | 2;
}

/** The command properties of a publish body, as the router takes them; undefined when it gives none. */
function propertiesOf(b: z.output<z.ZodObject<typeof commandProperties>>): CommandProperties | undefined {
  const { userProperties, contentType, payloadFormatIndicator, responseTopic, correlationData } = b;
  const p: CommandProperties = {
    userProperties,
    contentType,
    payloadFormatIndicator: payloadFormatIndicator as 0 | 1 | undefined,
    responseTopic,
    correlationData,
  };
  return Object.values(p).some((v) => v !== undefined) ? p : undefined;
}

/**
 * `POST /device_publish`: records a control log and sends the command to the
 * device's adapter, or queues it until the device connects (within the
 * command TTL). Answers 201 `{publishStatus: "1", controlLogIntID}`.
 * `POST /group_publish`: one command per member device, followed as a task;
 * answers 201 `{statusUrl: "/task_status/<taskID>"}`.
 */
export function publishRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Commands")
    .post(
      "/device_publish",
      {
        summary: "Send a command to a device",
        body: publishBody,
        operationId: "publishToDevice",
        response: z.object({
          publishStatus: z.string().describe("1 issued, 3 no acknowledgement needed"),
          controlLogIntID: z.number().int(),
        }),
      },
      async (c, { body }) => {
        const caller = c.get("caller");
        // The router finds the device itself, in the one query it needs anyway.
        const r = await deps.commands.publish(caller, {
          deviceIntId: body.deviceIntID,
          deviceId: body.deviceID,
          topic: body.topic,
          payload: body.payload,
          qos: (body.qos ?? 1) as 0 | 1 | 2,
          properties: propertiesOf(body),
          retain: body.retain === 1,
        });
        if (body.retain === 1) await deps.live.retainedChanged([r.deviceIntId]).catch(deps.logError);
        return { publishStatus: String(r.publishStatus), controlLogIntID: r.id };
      },
    )
    .post(
      "/group_publish",
      {
        summary: "Send a command to every device of a group",
        body: groupPublishBody,
        operationId: "publishToGroup",
        response: taskLink,
      },
      async (c, { body }) => {
        const caller = c.get("caller");
        const group = await groupOfCommand(deps.store.db, caller, body.groupID, body.groupIntID);
        const r = await deps.commands.publishToGroup(caller, {
          group,
          payload: body.payload,
          qos: groupQos(body),
          properties: propertiesOf(body),
          retain: body.retain === 1,
        });
        if (body.retain === 1) await deps.live.retainedChanged(r.deviceIntIds).catch(deps.logError);
        return { statusUrl: `/task_status/${r.task.taskId}` };
      },
    ).app;
}
