import { describe } from "vitest";
import { restApi } from "./targets/rest-api.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing every declared REST operation", () => seededFuzz(restApi, 1200));
