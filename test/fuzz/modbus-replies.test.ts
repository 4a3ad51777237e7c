import { describe } from "vitest";
import { modbusReplies } from "./targets/modbus-replies.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing Modbus TCP replies to the adapter's link", () => seededFuzz(modbusReplies, 600));
