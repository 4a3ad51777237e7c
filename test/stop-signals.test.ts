import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "stop-during-startup.ts");

describe("stop signals", () => {
  it("are honoured when they arrive before the process has registered its stop work, even twice", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("ARMED") && !out.includes("SIGNALLED")) {
        out += "SIGNALLED\n";
        child.kill("SIGTERM");
        child.kill("SIGINT");
      }
    });
    const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(out).toContain("STOPPED");
  });
});
