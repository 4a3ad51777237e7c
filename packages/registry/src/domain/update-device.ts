import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { assertImeiFree, checkDeviceRules } from "./device-rules.js";
import { DESCRIPTIVE_FIELDS, type DeviceEdit } from "./device-input.js";
import { deviceWrite, draftOf, replaceCerts } from "./device-write.js";
import { getDevice, type Device } from "./devices.js";
import { lockTenant } from "./locks.js";
import { loraKeys } from "../lora/lora-keys.js";
import { lwm2mBootstrapText, parseLwm2mBootstrap, type Lwm2mBootstrapSettings } from "../lwm2m/lwm2m-bootstrap.js";

const parseLora = (text: string | null): Record<string, unknown> | null =>
  text ? (JSON.parse(text) as Record<string, unknown>) : null;

/** The `lora` members a network session is made from: a change to any of them (or to the deviceID) ends it. */
const LORA_IDENTITY = [
  "type",
  "appEUI",
  "appKey",
  "nwkSKey",
  "appSKey",
  "fcntUp",
  "fcntDown",
  "macVersion",
  "nwkKey",
] as const;

function loraIdentityChanged(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  idBefore: string,
  idAfter: string,
): boolean {
  if (!before && !after) return false;
  if (!before || !after || idBefore !== idAfter) return true;
  return LORA_IDENTITY.some((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** What an edit changed that must end live sessions (credentials or access). */
export interface EditOutcome {
  device: Device;
  /**
   * Set when blocked, token, deviceUsername, gateway, modBusIndex or IMEI changed: the device must reconnect (a
   * Modbus slave's session stands for its gateway and unit id, an LwM2M client's for its endpoint name, the IMEI).
   */
  revoke?: string;
}

/**
 * Edits a device of the caller's tenant: the merged record must pass every
 * creation rule again. The product and the terminal/gateway kind are fixed.
 */
export async function updateDevice(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: DeviceEdit,
  now = Date.now(),
): Promise<EditOutcome> {
  const cur = await getDevice(db, caller, id);
  if (edit.productId !== undefined && edit.productId !== cur.productId)
    throw fail.form({ productID: "cannot change after creation" });
  if (edit.deviceType !== undefined && (edit.deviceType === 2) !== (cur.deviceType === 2))
    throw fail.form({ deviceType: "a device cannot become a gateway or the other way round" });
  const pick = <K extends keyof DeviceEdit>(k: K, fallback: unknown) => (edit[k] !== undefined ? edit[k] : fallback);
  const merged = {
    deviceType: pick("deviceType", cur.deviceType) as number,
    upLinkSystem: pick("upLinkSystem", cur.upLinkSystem) as number | null,
    gateway: pick("gateway", cur.gateway) as number | null,
    parentDevice: pick("parentDevice", cur.parentDevice) as number | null,
    authType: pick("authType", cur.authType) as number,
    deviceId: pick("deviceId", cur.deviceId) as string,
    imei: (pick("imei", cur.imei) as string | null) || null,
    autoSub: pick("autoSub", cur.autoSub) as number | null,
    modBusIndex: pick("modBusIndex", cur.modBusIndex) as number | null,
    lora: pick("lora", parseLora(cur.lora)) as Record<string, unknown> | null,
    lwm2mBootstrap: pick(
      "lwm2mBootstrap",
      parseLwm2mBootstrap(cur.lwm2mBootstrap) ?? null,
    ) as Lwm2mBootstrapSettings | null,
  };
  const descriptive = Object.fromEntries(
    DESCRIPTIVE_FIELDS.flatMap((k) => (edit[k] !== undefined ? [[k, edit[k]]] : [])),
  );
  // New LoRa keys or identity end the network session: an OTAA device joins again, an ABP one starts over.
  const loraRekeyed = loraIdentityChanged(parseLora(cur.lora), merged.lora, cur.deviceId, merged.deviceId);
  const set = {
    ...descriptive,
    ...merged,
    lora: merged.lora ? JSON.stringify(merged.lora) : null,
    lwm2mBootstrap: lwm2mBootstrapText(merged.lwm2mBootstrap),
    ...loraKeys(
      cur.cloudProtocol,
      merged.deviceType,
      merged.deviceId,
      merged.lora,
      loraRekeyed ? null : cur.loraDevAddr,
    ),
    ...(loraRekeyed ? { loraSession: null } : {}),
    ...(edit.deviceName !== undefined ? { deviceName: edit.deviceName } : {}),
    ...(edit.deviceUsername !== undefined ? { deviceUsername: edit.deviceUsername } : {}),
    ...(edit.token !== undefined ? { token: edit.token } : {}),
    ...(edit.blocked !== undefined ? { blocked: edit.blocked } : {}),
    updateAt: now,
  };
  await deviceWrite(() =>
    db.transaction().execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      await checkDeviceRules(
        tx,
        draftOf(caller.tenantId, cur.cloudProtocol, { ...merged, id, productIntId: cur.productIntId }),
      );
      await assertImeiFree(tx, merged.imei, id);
      await tx.updateTable("devices").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
      await replaceCerts(tx, id, edit.certs, now);
    }),
  );
  const device = await getDevice(db, caller, id);
  const revoke =
    device.blocked === 1 && cur.blocked !== 1
      ? "device blocked"
      : device.token !== cur.token
        ? "token changed"
        : device.deviceUsername !== cur.deviceUsername
          ? "username changed"
          : device.gateway !== cur.gateway || device.modBusIndex !== cur.modBusIndex
            ? "gateway or modBusIndex changed"
            : device.imei !== cur.imei
              ? "IMEI changed"
              : loraRekeyed
                ? "LoRa keys changed"
                : cur.certs.some((c) => !device.certs.includes(c))
                  ? "certificate unbound"
                  : undefined;
  return revoke ? { device, revoke } : { device };
}
