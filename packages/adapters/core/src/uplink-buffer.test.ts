import { describe, expect, it } from "vitest";
import { AdapterError } from "./errors.js";
import type { Uplink } from "./registry-client.js";
import { UplinkBuffer } from "./uplink-buffer.js";

const uplink = (topic: string): Uplink => ({
  sessionId: "s",
  tenantId: "t",
  deviceIntId: 1,
  topic,
  payload: new Uint8Array(),
  qos: 1,
  clientIp: "",
  receivedAtMs: 0,
});

describe("UplinkBuffer", () => {
  it("refuses a payload over its size limit with MESSAGE_TOO_LARGE, keeping nothing and using no seq", () => {
    const b = new UplinkBuffer(10, 4);
    const big = { ...uplink("a"), payload: new Uint8Array(5) };
    expect(() => b.add(big)).toThrow(expect.objectContaining({ code: "MESSAGE_TOO_LARGE" }) as Error);
    expect(b.size).toBe(0);
    expect(b.add({ ...uplink("b"), payload: new Uint8Array(4) }).seq).toBe(1);
  });

  it("limits payloads to IOT_MAX_MESSAGE_SIZE's default, 262144 bytes, unless told otherwise", () => {
    const b = new UplinkBuffer();
    expect(b.add({ ...uplink("a"), payload: new Uint8Array(262_144) }).seq).toBe(1);
    expect(() => b.add({ ...uplink("b"), payload: new Uint8Array(262_145) })).toThrow(AdapterError);
  });

  it("numbers uplinks 1, 2, 3 and keeps them in seq order until acked", async () => {
    const b = new UplinkBuffer();
    const first = b.add(uplink("a"));
    b.add(uplink("b"));
    b.add(uplink("c"));
    expect(b.pending().map((p) => p.seq)).toEqual([1, 2, 3]);
    b.ack(1);
    await expect(first.acked).resolves.toBeUndefined();
    expect(b.pending().map((p) => p.uplink.topic)).toEqual(["b", "c"]);
  });

  it("never reuses a seq after acks", () => {
    const b = new UplinkBuffer();
    b.ack(b.add(uplink("a")).seq);
    expect(b.add(uplink("b")).seq).toBe(2);
  });

  it("rejects a rejected uplink with its reason and stops keeping it", async () => {
    const b = new UplinkBuffer();
    const { seq, acked } = b.add(uplink("a"));
    b.reject(seq, "unknown device");
    await expect(acked).rejects.toThrow(/unknown device/);
    expect(b.size).toBe(0);
  });

  it("refuses with BUFFER_FULL beyond its limit", () => {
    const b = new UplinkBuffer(2);
    b.add(uplink("a"));
    b.add(uplink("b"));
    expect(() => b.add(uplink("c"))).toThrow(AdapterError);
    expect(() => b.add(uplink("c"))).toThrow(/buffer full/);
  });

  it("ignores acks for unknown seqs", () => {
    const b = new UplinkBuffer();
    b.add(uplink("a"));
    b.ack(99);
    expect(b.size).toBe(1);
  });

  it("fails every pending uplink on failAll", async () => {
    const b = new UplinkBuffer();
    const { acked } = b.add(uplink("a"));
    b.failAll(new AdapterError("CLIENT_CLOSED", "closed"));
    await expect(acked).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });
});
