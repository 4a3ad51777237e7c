import { describe } from "vitest";
import { mqttPackets } from "./targets/mqtt-packets.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing MQTT packets through the MQTT adapter", () => seededFuzz(mqttPackets, 2000));
