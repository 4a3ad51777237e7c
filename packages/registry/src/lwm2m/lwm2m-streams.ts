import { STREAM_DATA_TYPE } from "../pipeline/decode/types.js";
import { implicitReportStream } from "../pipeline/implicit-stream.js";

/** cloudProtocol of LwM2M products. */
export const LWM2M_PROTOCOL = 3;
/** Topics of an LwM2M device's answers (`up/resp`) and notifications (`up/notify`): this filter matches both. */
const LWM2M_UPLINK_TOPICS = "up/+";

/**
 * An LwM2M product needs no data streams: its data points are named by object path (`3303/0/5700`), and the
 * adapter's answers and notifications carry `data.content` `[{path, value}]`, so the registry decodes them against
 * every point of the product (an implicit stream, id 0, never stored).
 */
export function lwm2mReportStream<P>(points: readonly P[]) {
  return implicitReportStream(STREAM_DATA_TYPE.lwm2m, LWM2M_UPLINK_TOPICS, points);
}
