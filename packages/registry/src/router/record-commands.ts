import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { QueuedCommand } from "./command-delivery.js";
import { insertDeviceLogs, type DeviceLogRow } from "./control-log-insert.js";

/** A device command to record: its control log row and what routing it needs afterwards. */
export interface NewDeviceCommand {
  log: DeviceLogRow;
  deviceId: string;
  gateway: number | null;
  /** Epoch ms the command was issued, also the time it is sent at. */
  now: number;
}

/** A recorded command, ready to route. */
export interface RecordedCommand {
  cmd: QueuedCommand;
  now: number;
}

/**
 * Inserts a batch of device commands' control logs with multi-row INSERTs and answers each one's command, in the
 * batch's order. Both engines number the rows of one INSERT in the order of its VALUES, so the ids a device gets
 * back, in ascending order, are those of its commands in the batch's order.
 */
export async function insertControlLogs(
  tx: Kysely<Database>,
  items: readonly NewDeviceCommand[],
): Promise<RecordedCommand[]> {
  const ids = new Map<number, number[]>();
  for (const r of await insertDeviceLogs(
    tx,
    items.map((c) => c.log),
  )) {
    const own = ids.get(r.deviceIntId);
    if (own) own.push(r.id);
    else ids.set(r.deviceIntId, [r.id]);
  }
  for (const own of ids.values()) own.sort((a, b) => a - b);
  const taken = new Map<number, number>();
  return items.map(({ log, deviceId, gateway, now }) => {
    const k = taken.get(log.deviceIntId) ?? 0;
    taken.set(log.deviceIntId, k + 1);
    const cmd: QueuedCommand = {
      id: ids.get(log.deviceIntId)![k]!,
      deviceIntId: log.deviceIntId,
      deviceId,
      gateway,
      topic: log.topic,
      payload: log.payload,
      qos: log.qos,
      expiresAt: log.expiresAt ?? 0,
      properties: log.properties ?? null,
    };
    return { cmd, now };
  });
}
