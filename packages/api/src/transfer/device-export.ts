import { stringify } from "csv-stringify/sync";
import {
  listDevices,
  saveExportFile,
  TASK_STATUS,
  updateTask,
  type Caller,
  type Device,
  type DeviceFilter,
  type Store,
} from "@iot/registry";
import { formatDate } from "../forms/dates.js";
import { escapeFormula, ESCAPED_FORMULA } from "./csv-formula.js";
import { DEVICE_COLUMNS, type DeviceColumn } from "./device-columns.js";

/** Devices read per query while exporting. */
const PAGE = 1000;
/** LoRa members that are keys: exported only to callers who may see secrets. */
const LORA_KEYS = ["appKey", "nwkSKey", "appSKey"];

/** What an export needs besides the caller. */
export interface ExportJob {
  store: Store;
  caller: Caller;
  /** The task's row id. */
  taskIntId: number;
  /** Its public id (in the download URL). */
  taskId: string;
  filter: DeviceFilter;
  /** False for viewers: tokens and LoRa keys are left out. */
  secrets: boolean;
  /** How long the file stays downloadable, ms. */
  ttlMs: number;
}

const cell = (v: string | number | null | undefined): string => (v === null || v === undefined ? "" : String(v));

/** A device as one CSV record (the DEVICE_COLUMNS), `deviceIdOf` naming its gateway and upper device. */
function deviceRecord(
  d: Device,
  deviceIdOf: (id: number | null) => string | null,
  secrets: boolean,
): Record<DeviceColumn, string> {
  let lora = d.lora;
  if (lora && !secrets) {
    const parsed = JSON.parse(lora) as Record<string, unknown>;
    lora = JSON.stringify(Object.fromEntries(Object.entries(parsed).filter(([k]) => !LORA_KEYS.includes(k))));
  }
  return {
    deviceName: d.deviceName,
    authType: cell(d.authType),
    product: d.productId,
    upLinkSystem: cell(d.upLinkSystem),
    gateway: cell(deviceIdOf(d.gateway)),
    deviceID: d.deviceId,
    deviceUsername: d.deviceUsername,
    token: secrets ? d.token : "",
    IMEI: cell(d.imei),
    modBusIndex: cell(d.modBusIndex),
    deviceType: cell(d.deviceType),
    parentDevice: cell(deviceIdOf(d.parentDevice)),
    IMSI: cell(d.imsi),
    autoSub: cell(d.autoSub),
    lora: cell(lora),
    carrier: cell(d.carrier),
    physicalNetwork: cell(d.physicalNetwork),
    longitude: cell(d.longitude),
    latitude: cell(d.latitude),
    location: cell(d.location),
    manufacturer: cell(d.manufacturer),
    serialNumber: cell(d.serialNumber),
    softVersion: cell(d.softVersion),
    hardwareVersion: cell(d.hardwareVersion),
    description: cell(d.description),
    blocked: cell(d.blocked),
    productName: d.productName,
  };
}

/**
 * Orders devices so that each one comes after its gateway and its upper device (when they are in the export too),
 * else by id: an import of the file can then resolve every reference as it goes.
 */
function importOrder(devices: Device[]): Device[] {
  const byId = new Map(devices.map((d) => [d.id, d]));
  const done = new Set<number>();
  const out: Device[] = [];
  const visit = (d: Device, depth: number) => {
    if (done.has(d.id) || depth > 64) return;
    done.add(d.id);
    for (const ref of [d.gateway, d.parentDevice]) {
      const up = ref === null ? undefined : byId.get(ref);
      if (up) visit(up, depth + 1);
    }
    out.push(d);
  };
  for (const d of [...devices].sort((a, b) => a.id - b.id)) visit(d, 0);
  return out;
}

/**
 * Writes the CSV of the caller's devices matching the filter (a header row, then one device per row in import order,
 * formula cells neutralised) into the export file of the task, marked as holding secrets or not, advancing its
 * progress, and finishes the task with `{total, downloadUrl, expiresAt}`. A failure fails the task.
 */
export async function runDeviceExport(job: ExportJob, now = () => Date.now()): Promise<void> {
  const db = job.store.db;
  try {
    await updateTask(db, job.taskIntId, { status: TASK_STATUS.running, progress: 0 }, now());
    const devices: Device[] = [];
    for (let page = 1; ; page++) {
      const r = await listDevices(db, job.caller, { page, limit: PAGE, sort: "id", order: "asc" }, job.filter);
      devices.push(...r.items);
      // better-sqlite3 answers synchronously: let requests in between pages.
      await new Promise((resolve) => setImmediate(resolve));
      // Reading is the first half of the work.
      await updateTask(db, job.taskIntId, { progress: r.count ? (devices.length * 50) / r.count : 50 }, now());
      if (r.items.length < PAGE) break;
    }
    const deviceIds = new Map(devices.map((d) => [d.id, d.deviceId]));
    const missing = [
      ...new Set(devices.flatMap((d) => [d.gateway, d.parentDevice]).filter((id) => id !== null && !deviceIds.has(id))),
    ] as number[];
    for (let i = 0; i < missing.length; i += PAGE) {
      const rows = await db
        .selectFrom("devices")
        .select(["id", "deviceId"])
        .where("tenantId", "=", job.caller.tenantId)
        .where("id", "in", missing.slice(i, i + PAGE))
        .execute();
      for (const r of rows) deviceIds.set(r.id, r.deviceId);
    }
    const records = importOrder(devices).map((d) =>
      deviceRecord(d, (id) => (id === null ? null : (deviceIds.get(id) ?? null)), job.secrets),
    );
    // Formula cells are neutralised (csv-formula.ts) and quoted, so a spreadsheet opening the file runs none.
    const content = stringify(records, {
      header: true,
      columns: [...DEVICE_COLUMNS],
      cast: { string: escapeFormula },
      quoted_match: ESCAPED_FORMULA,
    });
    const expiresAt = now() + job.ttlMs;
    await saveExportFile(
      db,
      { taskIntId: job.taskIntId, tenantId: job.caller.tenantId, content, expiresAt, secrets: job.secrets },
      now(),
    );
    await updateTask(
      db,
      job.taskIntId,
      {
        status: TASK_STATUS.success,
        progress: 100,
        message: `${devices.length} devices exported`,
        result: {
          total: devices.length,
          downloadUrl: `/api/v1/devices_export/${job.taskId}/file`,
          expiresAt: formatDate(expiresAt),
        },
      },
      now(),
    );
  } catch (err) {
    await updateTask(db, job.taskIntId, { status: TASK_STATUS.failed, message: "export failed" }, now()).catch(
      () => {},
    );
    throw err;
  }
}
