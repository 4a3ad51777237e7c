/**
 * Fault injection: the SQLite disk fills up under MQTT QoS 1 and HTTP load. The central node's data folder is a small
 * tmpfs, filled to the last byte by a filler file once the devices publish: writes fail with one clear log line,
 * devices get no acknowledgement for what was not stored, and once the filler is deleted the same processes store
 * everything again (no restart), with every acknowledged message stored once.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { expectStoredOnce, httpLoad, mqttLoad, type DeviceRun } from "./device-load.js";
import { startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

const mountPoint = mkdtempSync(join(tmpdir(), "disk-full-"));
/** Mounting a tmpfs needs root (CI runs as root); elsewhere the test says why it did not run. */
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", mountPoint]).status === 0;
if (!mounted) console.warn("SKIPPED the SQLite disk-full test: cannot mount a tmpfs here (needs root)");

let f: RestartableFleet;
const filler = join(mountPoint, "filler");

beforeAll(async () => {
  if (!mounted) return;
  f = await startRestartableFleet({ IOT_DATA_DIR: join(mountPoint, "data") }, ["mqtt-adapter", "http-adapter"]);
}, 60_000);
afterAll(async () => {
  await f?.close();
  if (mounted) spawnSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes zeros to `path` until the filesystem has no byte left. */
function fillUp(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
  // The last partial chunk: fill the remaining bytes one small write at a time.
  const tail = openSync(path, "a");
  try {
    for (;;) writeSync(tail, Buffer.alloc(512));
  } catch {
    // ENOSPC: full to the block
  } finally {
    closeSync(tail);
  }
}

it.runIf(mounted)(
  "refuses to acknowledge what it cannot store while the disk is full, says so once, and recovers without a restart",
  async () => {
    const mqttDevice = await f.newDevice(1, "disk-mqtt");
    const httpDevice = await f.newDevice(5, "disk-http");
    const runs: DeviceRun[] = [
      {
        device: mqttDevice,
        load: await mqttLoad(reachable(f.adapters.get("mqtt-adapter")!.urls.mqtt!), mqttDevice, "full"),
      },
      { device: httpDevice, load: httpLoad(reachable(f.adapters.get("http-adapter")!.urls.http!), httpDevice, "full") },
    ];
    const acked = () => runs.reduce((n, r) => n + r.load.acked.size, 0);
    await expect.poll(acked, { timeout: 10_000 }).toBeGreaterThan(40);

    fillUp(filler);
    await expect
      .poll(() => f.central.errors.join("\n"), { timeout: 10_000 })
      .toMatch(/database disk full: writes fail until it recovers/);
    // Whatever was committed before the disk filled has been answered by now; from here on nothing is acked.
    await quietFor(1_000, "answers for what was committed before the disk filled come within this");
    const whileFull = acked();
    await quietFor(2_000, "nothing is acked while the disk is full");
    expect(acked()).toBe(whileFull);
    expect(f.central.child.exitCode).toBeNull();

    rmSync(filler);
    await expect.poll(acked, { timeout: 20_000 }).toBeGreaterThan(whileFull + 40);
    await expect.poll(() => f.central.errors.join("\n"), { timeout: 10_000 }).toMatch(/database available again/);
    await expectStoredOnce((m, p) => f.api(m, p), runs);
    const log = f.central.errors.join("\n");
    expect(log.match(/database disk full/g)).toHaveLength(1);
    // The adapters were told why: the full disk, not a follow-on error.
    expect(log).toMatch(/uplink store failed: database or disk is full/);
    for (const p of [f.central, ...f.adapters.values()]) expect(p.child.exitCode, p.name).toBeNull();
  },
  60_000,
);
