import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { simulatedPackage } from "./firmware-client.js";
import { parseFirmwareCommand } from "./firmware-command.js";

const image = simulatedPackage("2.0.0", 5000);
const sha256 = createHash("sha256").update(image).digest("hex");
const command = (data: Record<string, unknown>, reqID: unknown = "fw-1") =>
  Buffer.from(JSON.stringify({ reqID, msgType: "firmware-update", data }));

describe("firmware update commands in the LwM2M adapter", () => {
  it("takes the package wherever it stands among the members, checked against its SHA-256", () => {
    const last = parseFirmwareCommand(
      command({
        method: "push",
        firmwareID: "f",
        version: "2.0.0",
        size: 5000,
        sha256,
        package: image.toString("base64"),
      }),
    );
    const first = parseFirmwareCommand(
      command({ package: image.toString("base64"), method: "pull", version: "2.0.0", sha256: sha256.toUpperCase() }),
    );
    for (const parsed of [last, first]) {
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(parsed.value.package.equals(image)).toBe(true);
    }
    expect(first.ok && first.value).toMatchObject({ reqID: "fw-1", method: "pull", version: "2.0.0", sha256 });
  });

  it("holds one package for every command of the same SHA-256 (a group's update)", () => {
    const commands = Array.from({ length: 3 }, (_, i) =>
      parseFirmwareCommand(command({ method: "push", version: "2.0.0", sha256, package: image.toString("base64") }, i)),
    );
    const held = commands.map((c) => (c.ok ? c.value.package : undefined));
    expect(held[0]).toBeDefined();
    expect(held[1]).toBe(held[0]);
    expect(held[2]).toBe(held[0]);
  });

  it("refuses a damaged package, a missing one, and a command that is not JSON", () => {
    const damaged = Buffer.from(image);
    damaged.writeUInt8(damaged.readUInt8(100) ^ 1, 100);
    const other = createHash("sha256").update(damaged).digest("hex");
    expect(
      parseFirmwareCommand(command({ method: "push", version: "2", sha256: other, package: image.toString("base64") })),
    ).toEqual({ ok: false, reason: "data.package does not match data.sha256" });
    expect(parseFirmwareCommand(command({ method: "push", version: "2", sha256 }))).toEqual({
      ok: false,
      reason: "data.package must be the image in base64",
    });
    expect(parseFirmwareCommand(Buffer.from('{"package":"AAAA"'))).toEqual({
      ok: false,
      reason: "the command is not JSON",
    });
  });
});
