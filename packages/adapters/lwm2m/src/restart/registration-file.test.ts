import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RegistrationFile } from "./registration-file.js";
import { parseSaved, type SavedRegistration } from "./saved-registration.js";

const saved: SavedRegistration = {
  id: "abc",
  endpoint: "urn:imei:490154203237518",
  peer: { address: "127.0.0.1", port: 5000 },
  version: "1.1",
  binding: "U",
  queueMode: false,
  lifetime: 300,
  objects: { rootPath: "/", contentFormats: [], objects: [{ objectId: 3, instances: [0] }], ignored: [] },
  expiresAt: 1_700_000_300_000,
  observations: [{ path: "/3303/0", reqID: "autoSub", format: 110 }],
};

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the registrations file", () => {
  it("writes the snapshot shortly after a change and reads it back", async () => {
    dir = mkdtempSync(join(tmpdir(), "lwm2m-file-"));
    const snapshot = vi.fn(() => [saved]);
    const file = new RegistrationFile(join(dir, "r.json"), snapshot, pino({ level: "silent" }));
    file.changed();
    file.changed();
    await vi.waitFor(() => expect(file.read()).toEqual([saved]));
    expect(snapshot).toHaveBeenCalledTimes(1);
  });

  it("stops writing once closed, keeping what it last wrote", () => {
    vi.useFakeTimers();
    dir = mkdtempSync(join(tmpdir(), "lwm2m-file-"));
    let list = [saved];
    const file = new RegistrationFile(join(dir, "r.json"), () => list, pino({ level: "silent" }));
    file.flush();
    file.close();
    list = [];
    file.changed();
    vi.advanceTimersByTime(10_000);
    vi.useRealTimers();
    expect(JSON.parse(readFileSync(join(dir, "r.json"), "utf8"))).toEqual([saved]);
  });

  it("reads nothing from a missing or damaged file, and leaves out malformed entries", () => {
    dir = mkdtempSync(join(tmpdir(), "lwm2m-file-"));
    const file = new RegistrationFile(join(dir, "none.json"), () => [], pino({ level: "silent" }));
    expect(file.read()).toEqual([]);
    writeFileSync(join(dir, "none.json"), "{not json");
    expect(file.read()).toEqual([]);
    expect(parseSaved(JSON.stringify([saved, { id: 1 }, { ...saved, observations: [{ path: 3 }] }]))).toEqual([saved]);
  });
});
