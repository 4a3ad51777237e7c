import { STREAM_TYPE } from "./decode/types.js";

/**
 * A device report stream a product has without defining it (a Modbus or LwM2M product's, see modbus-streams.ts and
 * lwm2m-streams.ts): id 0, never stored, decoding `points` from uplinks on `topic`.
 */
export function implicitReportStream<P>(streamDataType: number, topic: string, points: readonly P[]) {
  return { id: 0, streamType: STREAM_TYPE.deviceReport, streamDataType, topic, points };
}
