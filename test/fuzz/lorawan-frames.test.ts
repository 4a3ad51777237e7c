import { describe } from "vitest";
import { lorawanFrames } from "./targets/lorawan-frames.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing the Semtech UDP and LoRaWAN codecs", () => seededFuzz(lorawanFrames, 3000));
