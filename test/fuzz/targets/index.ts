/** Every fuzz target, in the order `pnpm fuzz` runs them. */
import type { FuzzTarget } from "../harness.js";
import { coapMessages } from "./coap-messages.js";
import { dtlsRecords } from "./dtls-records.js";
import { httpDevice } from "./http-device.js";
import { lorawanFrames } from "./lorawan-frames.js";
import { lwm2mCodecs } from "./lwm2m-codecs.js";
import { modbusReplies } from "./modbus-replies.js";
import { mqttPackets } from "./mqtt-packets.js";
import { mqtt5Packets } from "./mqtt5-packets.js";
import { restApi } from "./rest-api.js";

/** The targets by name. */
export const TARGETS: readonly FuzzTarget<never>[] = [
  mqttPackets,
  mqtt5Packets,
  coapMessages,
  dtlsRecords,
  httpDevice,
  restApi,
  lwm2mCodecs,
  lorawanFrames,
  modbusReplies,
] as FuzzTarget<never>[];
