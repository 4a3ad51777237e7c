import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { firmwareCommandPayload, firmwareDownlinks } from "./firmware-payload.js";

const dir = mkdtempSync(join(tmpdir(), "fw-payload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ID = "2f1b8c3e-7a55-4d1e-9c0b-3e1f0a9d6b21";
const bytes = Buffer.from("SIMFW 2.0.0\npackage bytes");
const sha256 = createHash("sha256").update(bytes).digest("hex");
writeFileSync(join(dir, ID), bytes);
const stored = firmwareCommandPayload("fw-task", "pull", {
  firmwareID: ID,
  name: "meter",
  version: "2.0.0",
  size: bytes.length,
  sha256,
});

describe("firmware update commands: stored by reference, sent with the package", () => {
  it("stores the firmware's id, name, version, size and SHA-256 and no bytes", () => {
    expect(JSON.parse(stored)).toEqual({
      reqID: "fw-task",
      msgType: "firmware-update",
      data: { method: "pull", firmwareID: ID, name: "meter", version: "2.0.0", size: bytes.length, sha256 },
    });
  });

  it("adds the package in base64 on the way to the adapter, reading the file once for many devices", () => {
    const expand = firmwareDownlinks(dir);
    const sent = JSON.parse(expand(stored));
    expect(sent.data).toMatchObject({ firmwareID: ID, version: "2.0.0", package: bytes.toString("base64") });
    writeFileSync(join(dir, ID), Buffer.from("replaced on disk"));
    // Kept from the first read: the file is not read again for the next device.
    expect(JSON.parse(expand(stored)).data.package).toBe(bytes.toString("base64"));
    writeFileSync(join(dir, ID), bytes);
  });

  it("leaves other commands, and a package whose file is gone or changed, as they are", () => {
    const expand = firmwareDownlinks(dir);
    const read = JSON.stringify({ reqID: 1, msgType: "read", data: { path: "/3/0/0" } });
    expect(expand(read)).toBe(read);
    expect(expand("not json")).toBe("not json");
    const gone = stored.replace(ID, "00000000-0000-4000-8000-000000000000");
    expect(expand(gone)).toBe(gone);
    const changed = stored.replace(sha256, "ab".repeat(32));
    expect(expand(changed)).toBe(changed);
    const traversal = stored.replace(ID, "../../etc/passwd");
    expect(expand(traversal)).toBe(traversal);
  });
});
