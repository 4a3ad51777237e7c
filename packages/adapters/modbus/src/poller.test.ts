import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parsedConfig, tagEntry, tcpChannel } from "./channel-fixture.js";
import type { ModbusUnit } from "./channel-tags.js";
import type { ModbusValue } from "./codec/value-codec.js";
import { MemorySlave } from "./memory-slave.js";
import { PollStats } from "./poll-stats.js";
import { UnitPoller } from "./poller.js";
import { ModbusSerialLink } from "./transport/modbus-serial-link.js";

let slave: MemorySlave;
let link: ModbusSerialLink;
let poller: UnitPoller | undefined;
let stats: PollStats;
let events: (["online"] | ["offline", string] | ["report", Record<string, ModbusValue>])[];
let logs: Record<string, unknown>[];
let answeredCycles = 0;

const reports = () => events.filter((e) => e[0] === "report").map((e) => e[1]);

async function until(check: () => boolean, ms = 2000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out; events: ${JSON.stringify(events)}`);
    },
    { timeout: ms, interval: 5 },
  );
}

/** Polls unit 1 of a slave with these device entries and channel settings. */
async function poll(device: unknown[], over: Record<string, unknown> = {}, reportEveryMs = 60_000) {
  slave ??= await MemorySlave.start([1]);
  const channel = parsedConfig(tcpChannel(slave.port, device, over)).channels[0]!;
  link = new ModbusSerialLink({
    settings: channel.link,
    timeoutMs: channel.timeoutMs,
    retries: channel.retries,
    logger: pino({ level: "silent" }),
  });
  stats = new PollStats();
  events = [];
  logs = [];
  answeredCycles = 0;
  poller = new UnitPoller({
    unit: channel.units[0]!,
    settings: channel,
    link,
    stats,
    reportEveryMs,
    logger: pino({ level: "debug" }, { write: (l: string) => logs.push(JSON.parse(l)) }),
    listener: {
      online: () => events.push(["online"]),
      answered: () => answeredCycles++,
      offline: (_u: ModbusUnit, reason: string) => events.push(["offline", reason]),
      report: (_u: ModbusUnit, values) => events.push(["report", { ...values }]),
    },
  });
  poller.start();
  return channel;
}

afterEach(async () => {
  poller?.stop();
  poller = undefined;
  await link?.close();
  await slave?.stop();
  slave = undefined as unknown as MemorySlave;
});

describe("UnitPoller", () => {
  it("goes online on the first answer and reports every readable tag decoded in the channel's byte order", async () => {
    slave = await MemorySlave.start([1]);
    slave.set(1, "holdingRegister", 0, [0xe979, 0x42f6, 0xfffe]);
    slave.set(1, "inputRegister", 4, [0x0001, 0x0000]);
    slave.set(1, "coil", 2, [1]);
    await poll(
      [
        tagEntry("d1", 1, "temp", "400001", 25),
        tagEntry("d1", 1, "delta", "400003", 15),
        tagEntry("d1", 1, "count", "300005", 22),
        tagEntry("d1", 1, "pump", "000003", 23),
        tagEntry("d1", 1, "bit1", "400003", 23, { tagarrsz: 1 }),
        tagEntry("d1", 1, "setpoint", "400010", 16, { tagattr: "W" }),
      ],
      { byteOrder: "CDAB" },
    );
    await until(() => reports().length === 1);
    expect(events[0]).toEqual(["online"]);
    expect(reports()[0]).toEqual({ temp: 123.456, delta: -2, count: 1, pump: true, bit1: true });
    expect(poller!.online).toBe(true);
    expect(slave.reads.some((r) => r.offset === 9)).toBe(false);
  });

  it("reports only changed values between full reports, and all of them every reportEvery", async () => {
    slave = await MemorySlave.start([1]);
    slave.set(1, "holdingRegister", 0, [1, 2]);
    await poll([tagEntry("d1", 1, "a", "400001", 16), tagEntry("d1", 1, "b", "400002", 16)], {}, 400);
    await until(() => reports().length === 1);
    expect(reports()[0]).toEqual({ a: 1, b: 2 });
    await quietFor(120, "poll cycles with nothing changed report nothing");
    expect(reports()).toHaveLength(1);
    slave.set(1, "holdingRegister", 1, [3]);
    await until(() => reports().length === 2);
    expect(reports()[1]).toEqual({ b: 3 });
    await until(() => reports().length === 3, 1000);
    expect(reports()[2]).toEqual({ a: 1, b: 3 });
    expect(stats.polls).toBeGreaterThanOrEqual(6);
  });

  it("merges near registers into one request per cycle and counts requests and registers", async () => {
    slave = await MemorySlave.start([1]);
    const device = Array.from({ length: 10 }, (_, i) => tagEntry("d1", 1, `r${i}`, `4000${10 + i * 2}`, 16));
    await poll(device);
    await until(() => stats.polls >= 3);
    poller!.stop();
    // The request in flight answered: counted when sent, its registers when its answer came.
    await until(() => stats.requests === slave.reads.length && stats.registersRead === 19 * slave.reads.length);
    const perCycle = slave.reads.filter((r) => r.offset === 9);
    expect(perCycle.length).toBe(slave.reads.length);
    expect(slave.reads[0]).toEqual({ unit: 1, area: "holdingRegister", offset: 9, count: 19 });
    expect(stats.requests).toBe(stats.polls);
    expect(stats.requests).toBe(slave.reads.length);
    expect(stats.registersRead).toBe(19 * slave.reads.length);
  });

  it("goes offline after a cycle with no answer and online again when the slave answers", async () => {
    slave = await MemorySlave.start([1]);
    await poll([tagEntry("d1", 1, "a", "400001", 16)], { timeout: 50, retries: 1 });
    await until(() => events.length === 2);
    slave.silent.add(1);
    await until(() => events.some((e) => e[0] === "offline"));
    expect(events.find((e) => e[0] === "offline")).toEqual(["offline", "no answer within 50 ms"]);
    expect(poller!.online).toBe(false);
    const answeredBefore = answeredCycles;
    await quietFor(100, "cycles against a silent slave get no answer");
    expect(answeredCycles).toBe(answeredBefore);
    slave.set(1, "holdingRegister", 0, [5]);
    slave.silent.delete(1);
    await until(() => events.filter((e) => e[0] === "online").length === 2);
    await until(() => reports().length === 2);
    expect(reports()[1]).toEqual({ a: 5 });
    expect(answeredCycles).toBeGreaterThan(answeredBefore);
    expect(stats.errors).toBeGreaterThan(0);
  });

  it("logs an exception with its code and name, keeps the unit online and reports the other requests' values", async () => {
    slave = await MemorySlave.start([1]);
    slave.set(1, "holdingRegister", 0, [7]);
    slave.failReads(1, "holdingRegister", 100, 2);
    await poll([tagEntry("d1", 1, "good", "400001", 16), tagEntry("d1", 1, "bad", "400101", 16)]);
    await until(() => stats.polls >= 3);
    expect(events[0]).toEqual(["online"]);
    expect(reports()[0]).toEqual({ good: 7 });
    const warned = logs.filter((l) => l.msg === "slave answered an exception");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      unit: 1,
      deviceId: "d1",
      exception: { code: 2, name: "Illegal Data Address" },
      reason: "exception 2 (Illegal Data Address)",
    });
    expect(events.some((e) => e[0] === "offline")).toBe(false);
  });

  it("records how late cycles start and skips the cycles a slow slave made it miss", async () => {
    slave = await MemorySlave.start([1]);
    slave.delayMs = 130;
    await poll([tagEntry("d1", 1, "a", "400001", 16)], { pollInterval: 50, timeout: 1000 });
    await until(() => stats.polls >= 4);
    expect(stats.missedCycles).toBeGreaterThanOrEqual(2);
    expect(stats.latenessPercentile(100)).toBeLessThan(50 + 20);
    expect(stats.latenessPercentile(100)).toBeGreaterThan(0);
  });

  it("takes new tags in place and forgets the values of tags that are gone", async () => {
    slave = await MemorySlave.start([1]);
    slave.set(1, "holdingRegister", 0, [1, 2]);
    await poll([tagEntry("d1", 1, "a", "400001", 16)]);
    await until(() => reports().length === 1);
    const next = parsedConfig(tcpChannel(slave.port, [tagEntry("d1", 1, "b", "400002", 16)])).channels[0]!;
    poller!.update(next.units[0]!, next);
    await until(() => reports().length === 2);
    expect(reports()[1]).toEqual({ b: 2 });
    expect([...poller!.lastValues.keys()]).toEqual(["b"]);
  });
});

describe("PollStats", () => {
  it("gives lateness percentiles of the samples kept", () => {
    const s = new PollStats();
    expect(s.latenessPercentile(99)).toBe(0);
    for (let i = 1; i <= 100; i++) s.lateness(i);
    expect(s.latenessPercentile(50)).toBe(50);
    expect(s.latenessPercentile(99)).toBe(99);
    expect(s.latenessPercentile(100)).toBe(100);
    s.resetLateness();
    expect(s.latenessPercentile(99)).toBe(0);
  });
});
