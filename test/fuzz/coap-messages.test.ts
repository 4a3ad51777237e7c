import { describe } from "vitest";
import { coapMessages } from "./targets/coap-messages.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing CoAP datagrams through the CoAP adapter's message layer", () => seededFuzz(coapMessages, 3000));
