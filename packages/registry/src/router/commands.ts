import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import { DEFAULT_DOWNLINK_TOPIC } from "../domain/device-auth.js";
import type { AdapterLink, SessionTable } from "../sessions/session-table.js";

/** publishStatus codes: 0 failed, 1 issued, 2 delivered (device acked), 3 sent, no ack needed. */
export const PUBLISH_STATUS = { failed: 0, issued: 1, delivered: 2, sent: 3 } as const;
export type PublishStatus = (typeof PUBLISH_STATUS)[keyof typeof PUBLISH_STATUS];

/** A command for one device, already checked to belong to the caller's tenant. */
export interface DeviceCommand {
  deviceIntId: number;
  /** Relative topic; the device's default downlink topic when omitted. */
  topic?: string | undefined;
  payload: string;
  /** 1 asks the device for an acknowledgement, 0 does not. */
  qos: 0 | 1;
}

/**
 * Turns commands into control logs and routes them to the adapter holding
 * the device's session. Adapters report the outcome, which updates the log.
 */
export class CommandRouter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessions: SessionTable,
    /** How long an issued command stays deliverable, ms. */
    private readonly ttlMs: number,
  ) {}

  /** Records the command and sends it on; answers the control log id and its status now. */
  async publish(caller: Caller, cmd: DeviceCommand, now = Date.now()): Promise<{ id: number; publishStatus: PublishStatus }> {
    const topic = cmd.topic ?? DEFAULT_DOWNLINK_TOPIC;
    const route = await this.routeOf(cmd.deviceIntId, topic);
    const link = route?.link;
    const status = link ? PUBLISH_STATUS.issued : PUBLISH_STATUS.failed;
    const expiresAt = now + this.ttlMs;
    const row = await this.db
      .insertInto("controlLogs")
      .values({
        tenantId: caller.tenantId,
        deviceIntId: cmd.deviceIntId,
        groupIntId: null,
        topic,
        payload: cmd.payload,
        qos: cmd.qos,
        publishStatus: status,
        userIntId: caller.userIntId,
        publishUser: caller.username,
        expiresAt,
        createAt: now,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (route) route.link.sendDownlink({ id: row.id, deviceIntId: route.deviceIntId, topic: route.topic, payload: Buffer.from(cmd.payload, "utf8"), qos: cmd.qos, expiresAt });
    return { id: row.id, publishStatus: status };
  }

  /**
   * Where a command for a device goes: its own session, or — for a device
   * behind a gateway that is not connected itself — its gateway's session, on
   * `devices/<deviceID>/<topic>` (the topic the gateway relays for it).
   */
  private async routeOf(deviceIntId: number, topic: string): Promise<{ link: AdapterLink; deviceIntId: number; topic: string } | undefined> {
    const own = this.sessions.route(deviceIntId);
    if (own) return { link: own, deviceIntId, topic };
    const d = await this.db.selectFrom("devices").select(["gateway", "deviceId"]).where("id", "=", deviceIntId).executeTakeFirst();
    const viaGateway = d?.gateway != null ? this.sessions.route(d.gateway) : undefined;
    if (!viaGateway || !d || d.gateway == null) return undefined;
    return { link: viaGateway, deviceIntId: d.gateway, topic: `devices/${d.deviceId}/${topic}` };
  }

  /** An adapter's report on a downlink. Only a command still "issued" changes. */
  async settle(downlinkId: number, status: PublishStatus, now = Date.now()): Promise<void> {
    await this.db
      .updateTable("controlLogs")
      .set({ publishStatus: status, updateAt: now })
      .where("id", "=", downlinkId)
      .where("publishStatus", "=", PUBLISH_STATUS.issued)
      .execute();
  }
}
