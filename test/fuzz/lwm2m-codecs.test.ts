import { describe } from "vitest";
import { lwm2mCodecs } from "./targets/lwm2m-codecs.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing the LwM2M codecs", () => seededFuzz(lwm2mCodecs, 3000));
