import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { admitDevice, sameSecret } from "./admit-device.js";
import { selectAuthDevice } from "./auth-device-row.js";
import type { AuthOutcome } from "./auth-outcome.js";
import { denier } from "./auth-refusal.js";
import type { AuthRequest, DeviceCredentials } from "./device-credentials.js";

/** The stamp of a Modbus slave session: the gateway and unit id it was admitted under (see tokenStamp). */
export const modbusStamp = (gatewayIntId: number, index: number) => `m:${gatewayIntId}:${index}`;

/**
 * A Modbus slave, polled by the adapter of its gateway: the gateway's own token credentials must hold (as
 * `tokenAuth` checks them, the gateway not blocked), and the slave is the gateway's device whose modBusIndex is the
 * unit id. Refusals are logged under the gateway's tenant with the device named `<gatewayID>!<unit>` when unknown.
 */
export async function modbusAuth(
  db: Kysely<Database>,
  req: AuthRequest,
  c: Extract<DeviceCredentials, { kind: "modbus" }>,
  now: number,
): Promise<AuthOutcome> {
  const gateway = await selectAuthDevice(db).where("d.deviceUsername", "=", c.gatewayUsername).executeTakeFirst();
  const gatewayOk = gateway && sameSecret(c.gatewayToken, gateway.token) && gateway.deviceId === c.gatewayDeviceId;
  const row =
    gatewayOk && gateway.deviceType === 2
      ? await selectAuthDevice(db)
          .where("d.gateway", "=", gateway.id)
          .where("d.modBusIndex", "=", c.index)
          .executeTakeFirst()
      : undefined;
  const deny = denier(db, req, row, gatewayOk ? gateway.tenantId : null, now);
  if (!gatewayOk || gateway.authType !== 1) return deny("BAD_CREDENTIALS", "unknown gateway or wrong token");
  if (gateway.blocked === 1) return deny("BLOCKED", "gateway is blocked");
  if (gateway.deviceType !== 2) return deny("NOT_ALLOWED", "not a gateway");
  if (!row) return deny("BAD_CREDENTIALS", `no device of the gateway has modBusIndex ${c.index}`);
  return admitDevice(db, row, req.protocol, deny, modbusStamp(gateway.id, c.index));
}
