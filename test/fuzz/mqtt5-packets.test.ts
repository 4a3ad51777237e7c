import { describe } from "vitest";
import { mqtt5Packets } from "./targets/mqtt5-packets.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing MQTT 5.0 packets through the MQTT adapter", () => seededFuzz(mqtt5Packets, 2000));
