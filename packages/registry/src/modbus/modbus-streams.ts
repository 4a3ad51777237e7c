import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { STREAM_DATA_TYPE } from "../pipeline/decode/types.js";
import { implicitReportStream } from "../pipeline/implicit-stream.js";
import type { CommandStream } from "../router/command-payload.js";
import { isWritableArea, registerArea } from "./register-area.js";

/** cloudProtocol of Modbus products. */
export const MODBUS_PROTOCOL = 7;
/** Topic of the polled values the Modbus adapter sends for each slave: `{dataPointID: value}`. */
export const MODBUS_UPLINK_TOPIC = "up/modbus";
/** Topic of commands to a Modbus slave: `{dataPointID: value}` written to the points' registers. */
const MODBUS_COMMAND_TOPIC = "down/modbus";

/**
 * A Modbus product needs no data streams: its data points name their registers, so the registry treats them as one
 * JSON stream on each side. Uplinks on MODBUS_UPLINK_TOPIC decode against every point with a register (this
 * stream's id is 0: it is no stored stream); commands are checked against the same points, those in read-only
 * areas (discrete inputs, input registers) refused by name.
 */
export function modbusReportStream<P>(points: readonly P[]) {
  return implicitReportStream(STREAM_DATA_TYPE.json, MODBUS_UPLINK_TOPIC, points);
}

/** The command side of a Modbus product (see modbusReportStream): one JSON stream whose payloads must be objects. */
export async function modbusCommandStream(db: Kysely<Database>, productIntId: number): Promise<CommandStream> {
  const points = await db
    .selectFrom("dataPoints")
    .select([
      "id",
      "dataPointId",
      "dataPointName",
      "pointDataType",
      "dataTransType",
      "binarySize",
      "enum",
      "upperLimit",
      "lowerLimit",
      "faultValue",
      "isDiscard",
      "unitSymbol",
      "registerAddr",
    ])
    .where("productIntId", "=", productIntId)
    .where("registerAddr", "is not", null)
    .orderBy("id")
    .execute();
  return {
    id: 0,
    streamDataType: STREAM_DATA_TYPE.json,
    topic: MODBUS_COMMAND_TOPIC,
    objectsOnly: true,
    points: points.map(({ registerAddr, ...p }) => {
      const area = registerArea(registerAddr!);
      const readOnly =
        "reason" in area
          ? `has an unusable registerAddr: ${area.reason}`
          : isWritableArea(area.area)
            ? undefined
            : `is in a read-only Modbus area (registerAddr ${registerAddr})`;
      return readOnly ? { ...p, readOnly } : p;
    }),
  };
}
