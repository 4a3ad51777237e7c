import { describe } from "vitest";
import { httpDevice } from "./targets/http-device.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing requests to the HTTP device adapter", () => seededFuzz(httpDevice, 2000));
