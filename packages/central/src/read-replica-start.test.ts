import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { startCentral } from "./central.js";
import { readCentralConfig } from "./config.js";

const dataDir = mkdtempSync(join(tmpdir(), "central-read-url-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("IOT_DATABASE_READ_URL on SQLite", () => {
  it("fails the start with one line saying read replicas need PostgreSQL", async () => {
    const config = readCentralConfig({
      IOT_DATA_DIR: dataDir,
      IOT_DATABASE_READ_URL: "postgres://127.0.0.1:1/iot",
      IOT_API_PORT: "0",
      IOT_GRPC_PORT: "0",
    });
    await expect(startCentral(config, pino({ level: "silent" }))).rejects.toThrow(
      /^IOT_DATABASE_READ_URL needs PostgreSQL: SQLite has no read replicas/,
    );
  });
});
