import { createHash } from "node:crypto";
import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryHarness, type Harness } from "../memory-harness.js";
import { simulatedPackage } from "./firmware-client.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

async function registered(): Promise<Harness> {
  h = memoryHarness({
    client: { firmwareVersion: "1.0.0" },
    server: { firmwareBaseUri: () => "coap://10.0.0.1:5683", firmwareStepTimeoutMs: 3000 },
  });
  expect((await h.client.register()).code).toBe("2.01");
  await nextTurn();
  return h;
}

const update = (method: string, version: string, pkg: Buffer, sha256?: string) =>
  h!.registry.pushDownlink({
    deviceIntId: 7,
    payload: Buffer.from(
      JSON.stringify({
        reqID: "fw1",
        msgType: "firmware-update",
        data: {
          method,
          version,
          package: pkg.toString("base64"),
          sha256: sha256 ?? createHash("sha256").update(pkg).digest("hex"),
        },
      }),
    ),
  });

/** The State values the device reported on up/notify, in order. */
const states = () =>
  h!
    .uplinks("up/notify")
    .map((u) => (u.data as { content?: { path: string; value: number }[] }).content?.[0])
    .filter((c) => c?.path === "/5/0/3")
    .map((c) => c!.value);

describe("firmware update (object 5)", () => {
  it("pushes the package by block-wise Write to /5/0/0, executes Update once Downloaded, and checks /3/0/3", async () => {
    await registered();
    const pkg = simulatedPackage("2.0.0", 20_000);
    expect(await update("push", "2.0.0", pkg)).toEqual({ status: "DELIVERED" });
    expect(h!.client.firmware!.received).toBe(20_000);
    const put = h!.client.requests.find((r) => r.path === "/5/0/0")!;
    expect(put).toMatchObject({ method: "PUT", contentFormat: 42 });
    expect(h!.client.requests.filter((r) => r.path === "/5/0/2").map((r) => r.method)).toEqual(["POST"]);
    expect(states()).toEqual([1, 2, 3, 0]);
    expect(h!.uplinks("up/resp").at(-1)).toMatchObject({
      reqID: "fw1",
      msgType: "firmware-update",
      data: { code: "2.05", content: [{ path: "/3/0/3", value: "2.0.0" }] },
    });
    // The device rebooted into the new version and registered again.
    await vi.waitFor(() => expect(h!.client.requests.filter((r) => r.path === "/3/0/3")).toHaveLength(1));
    await vi.waitFor(() => expect([...h!.server.registrations.values()].map((r) => r.endpoint)).toHaveLength(1));
    expect(h!.server.downloads.size).toBe(0);
  });

  it("pulls: writes a Package URI with an unguessable token that the device downloads block-wise", async () => {
    await registered();
    const pkg = simulatedPackage("3.1.0", 30_000);
    expect(await update("pull", "3.1.0", pkg)).toEqual({ status: "DELIVERED" });
    const uri = h!.client.resources.get("/5/0/1") as { value: string };
    expect(uri.value).toMatch(/^coap:\/\/10\.0\.0\.1:5683\/fw\/[A-Za-z0-9_-]{22}$/);
    expect(h!.client.firmware!.received).toBe(30_000);
    // 30,000 bytes in 1024-byte Block2 blocks: 30 requests from the device.
    const blocks = h!.link
      .sent("device")
      .filter((p) => p.options.some((o) => o.name === "Uri-Path" && o.value.toString() === "fw"));
    expect(blocks.length).toBe(30);
    // The token is withdrawn once the update ended: the URI answers 4.04.
    const again = await h!.client.requestTo(h!.link.serverPeer, { method: "GET", path: new URL(uri.value).pathname });
    expect(again.code).toBe("4.04");
  });

  it("fails with the device's Update Result when the package does not verify, and never executes Update", async () => {
    await registered();
    const outcome = await update("pull", "2.0.0", Buffer.alloc(5000, 1));
    expect(outcome).toEqual({
      status: "FAILED",
      message: "update result 5: integrity check failure for new downloaded package",
    });
    expect(h!.client.requests.some((r) => r.path === "/5/0/2")).toBe(false);
    expect(h!.client.resources.get("/3/0/3")).toEqual({ type: "string", value: "1.0.0" });
  });

  it("fails with Update Result 8 when the device cannot apply the update", async () => {
    await registered();
    h!.client.firmware!.failUpdateWith = 8;
    const outcome = await update("push", "2.0.0", simulatedPackage("2.0.0", 3000));
    expect(outcome).toEqual({ status: "FAILED", message: "update result 8: firmware update failed" });
  });

  it("refuses a package that does not match its SHA-256 and sends the device nothing", async () => {
    await registered();
    const outcome = await update("push", "2.0.0", simulatedPackage("2.0.0", 3000), "00".repeat(32));
    expect(outcome).toEqual({ status: "FAILED", message: "data.package does not match data.sha256" });
    expect(h!.client.requests).toEqual([]);
  });
});
