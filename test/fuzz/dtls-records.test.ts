import { describe } from "vitest";
import { dtlsRecords } from "./targets/dtls-records.js";
import { seededFuzz } from "./seeded.js";

describe("fuzzing DTLS datagrams through the record and handshake codecs and the DTLS server", () =>
  seededFuzz(dtlsRecords, 3000));
