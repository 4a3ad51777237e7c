import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { DeviceCommand } from "../router/commands.js";
import { PUBLISH_STATUS } from "../router/publish-status.js";
import { fail } from "../errors.js";
import { firmwareCommandPayload } from "../lwm2m/firmware-payload.js";
import type { Caller } from "./caller.js";
import { readFirmwarePackage, type Firmware } from "./firmwares.js";
import { createTask, TASK_STATUS, updateTask, type Task } from "./tasks.js";

/** How a package reaches the devices: they download it from the adapter (pull), or it is written to them (push). */
export type FirmwareMethod = "pull" | "push";

/** The devices of an update: listed by deviceID, or the members of a group. */
export type FirmwareTargets = { deviceIds: string[] } | { groupIntId: number };

/** One device's line of the task's result. */
export interface FirmwareDeviceProgress {
  deviceID: string;
  /** pending, downloading, downloaded, updating, updated, failed. */
  status: string;
  /** Its latest State /5/0/3 and Update Result /5/0/5, as it reported them. */
  state?: number;
  updateResult?: number;
  /** Why it failed. */
  message?: string;
}

/** The task's result: counts and a line per device. */
export interface FirmwareUpdateResult {
  total: number;
  updated: number;
  failed: number;
  pending: number;
  devices: FirmwareDeviceProgress[];
}

/** What a firmware update needs: the store, the command path and the firmware folder. */
export interface FirmwareUpdateDeps {
  db: Kysely<Database>;
  commands: { publish(caller: Caller, cmd: DeviceCommand): Promise<{ id: number }> };
  dir: string;
  /** How often the task reads its devices' progress, ms (default 500). */
  pollMs?: number;
}

const STATE_NAMES = ["pending", "downloading", "downloaded", "updating"];

interface Target {
  id: number;
  deviceId: string;
  productIntId: number;
}

/** The devices of the caller's tenant to update: each listed one must exist and be of the package's product. */
async function targetsOf(db: Kysely<Database>, caller: Caller, firmware: Firmware, targets: FirmwareTargets) {
  const base = db
    .selectFrom("devices as d")
    .select(["d.id", "d.deviceId", "d.productIntId"])
    .where("d.tenantId", "=", caller.tenantId);
  if ("groupIntId" in targets) {
    const members: Target[] = await base
      .innerJoin("groupDevices as gd", "gd.deviceIntId", "d.id")
      .where("gd.groupIntId", "=", targets.groupIntId)
      .orderBy("d.id")
      .execute();
    const of = members.filter((m) => m.productIntId === firmware.productIntId);
    if (of.length === 0) throw fail.form({ groupID: "has no device of the package's product" });
    return of;
  }
  const found: Target[] = await base.where("d.deviceId", "in", targets.deviceIds).orderBy("d.id").execute();
  for (const id of targets.deviceIds) {
    const d = found.find((f) => f.deviceId === id);
    if (!d) throw fail.form({ deviceIDs: `${id}: no such device` });
    if (d.productIntId !== firmware.productIntId)
      throw fail.form({ deviceIDs: `${id} is not a device of the package's product` });
  }
  return found;
}

/**
 * Starts a firmware update of a package's devices as a task (`firmware_update`): one LwM2M `firmware-update` command
 * per device through the command path (queued for a device that is offline, as any command), which the LwM2M
 * adapter carries out (packages/adapters/lwm2m/src/firmware). The task's result has a line per device with its
 * State and Update Result from the `up/notify` uplinks of the command and, once its command settled, updated or
 * failed with the reason. Answers the task at once and the promise of its end.
 */
export async function startFirmwareUpdate(
  deps: FirmwareUpdateDeps,
  caller: Caller,
  firmware: Firmware,
  method: FirmwareMethod,
  targets: FirmwareTargets,
  now = Date.now(),
): Promise<{ task: Task; done: Promise<void> }> {
  const devices = await targetsOf(deps.db, caller, firmware, targets);
  // The file must still be the package (its SHA-256) before any device is sent the command.
  await readFirmwarePackage(deps.dir, firmware);
  const lines: FirmwareDeviceProgress[] = devices.map((d) => ({ deviceID: d.deviceId, status: "pending" }));
  const summary = (): FirmwareUpdateResult => {
    const updated = lines.filter((l) => l.status === "updated").length;
    const failed = lines.filter((l) => l.status === "failed").length;
    return { total: lines.length, updated, failed, pending: lines.length - updated - failed, devices: lines };
  };
  const task = await createTask(
    deps.db,
    caller,
    {
      kind: "firmware_update",
      status: TASK_STATUS.running,
      message: `${firmware.version} by ${method}`,
      result: summary(),
    },
    now,
  );
  const reqID = `fw-${task.taskId}`;
  // The control log names the package; its bytes are added on the way to the adapter (lwm2m/firmware-payload.ts).
  const payload = firmwareCommandPayload(reqID, method, {
    firmwareID: firmware.firmwareId,
    name: firmware.firmwareName,
    version: firmware.version,
    size: Number(firmware.size),
    sha256: firmware.sha256,
  });
  const lastEvent = await deps.db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  const logs: number[] = [];
  for (const d of devices)
    logs.push((await deps.commands.publish(caller, { deviceIntId: d.id, deviceId: d.deviceId, payload, qos: 1 })).id);
  const done = follow(deps, task, reqID, devices, logs, lines, summary, Number(lastEvent?.id ?? 0));
  return { task, done };
}

/** Reads the devices' progress until every command settled, writing it to the task. */
async function follow(
  deps: FirmwareUpdateDeps,
  task: Task,
  reqID: string,
  devices: Target[],
  logs: number[],
  lines: FirmwareDeviceProgress[],
  summary: () => FirmwareUpdateResult,
  afterEvent: number,
): Promise<void> {
  const pollMs = deps.pollMs ?? 500;
  const byDevice = new Map(devices.map((d, i) => [d.id, lines[i]!]));
  for (;;) {
    const settled = await deps.db
      .selectFrom("controlLogs")
      .select(["id", "deviceIntId", "publishStatus", "result"])
      .where("id", "in", logs)
      .where("publishStatus", "!=", PUBLISH_STATUS.issued)
      .execute();
    const notes = await deps.db
      .selectFrom("deviceEvents")
      .select(["id", "deviceIntId", "payload"])
      .where(
        "deviceIntId",
        "in",
        devices.map((d) => d.id),
      )
      .where("topic", "=", "up/notify")
      .where("id", ">", afterEvent)
      .orderBy("id")
      .execute();
    for (const n of notes) {
      afterEvent = Math.max(afterEvent, Number(n.id));
      const line = byDevice.get(Number(n.deviceIntId));
      const value = notifiedValue(n.payload, reqID);
      if (!line || !value || line.status === "updated" || line.status === "failed") continue;
      if (value.path === "/5/0/3") {
        line.state = value.value;
        line.status = STATE_NAMES[value.value] ?? line.status;
      } else if (value.path === "/5/0/5") line.updateResult = value.value;
    }
    for (const s of settled) {
      const line = byDevice.get(Number(s.deviceIntId))!;
      if (s.publishStatus === PUBLISH_STATUS.failed) {
        line.status = "failed";
        line.message = s.result ?? "failed";
      } else line.status = "updated";
    }
    const r = summary();
    const end = r.pending === 0;
    await updateTask(deps.db, task.id, {
      progress: ((r.updated + r.failed) * 100) / Math.max(1, r.total),
      result: r,
      ...(end
        ? {
            status: r.failed === 0 ? TASK_STATUS.success : TASK_STATUS.failed,
            message: r.failed === 0 ? `${r.updated} updated` : `${r.failed} of ${r.total} devices failed`,
          }
        : {}),
    });
    if (end) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The State or Update Result an `up/notify` payload of the update's command carries; undefined for any other. */
function notifiedValue(payload: Uint8Array, reqID: string): { path: string; value: number } | undefined {
  try {
    const p = JSON.parse(Buffer.from(payload).toString("utf8")) as {
      reqID?: unknown;
      data?: { content?: { path: string; value: unknown }[] };
    };
    const c = p.reqID === reqID ? p.data?.content?.[0] : undefined;
    return c && typeof c.value === "number" ? { path: c.path, value: c.value } : undefined;
  } catch {
    return undefined;
  }
}
