/** Every fuzz target, in the order `pnpm fuzz` runs them. */
import type { FuzzTarget } from "../harness.js";
import { lorawanFrames } from "./lorawan-frames.js";
import { lwm2mCodecs } from "./lwm2m-codecs.js";
import { modbusReplies } from "./modbus-replies.js";

/** The targets by name. */
export const TARGETS: readonly FuzzTarget<never>[] = [lwm2mCodecs, lorawanFrames, modbusReplies] as FuzzTarget<never>[];
