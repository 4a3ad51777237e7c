import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import type { SessionTable } from "../sessions/session-table.js";
import type { CommandRouter } from "../router/commands.js";
import { PUBLISH_STATUS } from "../router/publish-status.js";
import {
  buildChannelConfig,
  channelSettings,
  MODBUS_CONFIG_TOPIC,
  slavePollInterval,
  type ChannelConfig,
  type Slave,
} from "./channel-config.js";
import { MODBUS_PROTOCOL } from "./modbus-streams.js";

/** How long changes are gathered before the tenant's gateways are looked at, ms: an import or a burst of edits. */
const SETTLE_MS = 100;

/**
 * Keeps every connected Modbus gateway's adapter configured. A gateway session that opens gets its configuration
 * at once; after a change to a tenant's devices, data points or gateways (`tenantChanged`), each of the tenant's
 * connected Modbus gateways whose configuration differs from the last one pushed gets the new one. Each push is a
 * command to the gateway on MODBUS_CONFIG_TOPIC, so it is a gateway control log that turns delivered when the
 * adapter applied it, or failed with the adapter's reason.
 */
export class ModbusConfigPush {
  private readonly lastPushed = new Map<number, string>();
  private readonly dueTenants = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessions: SessionTable,
    private readonly commands: CommandRouter,
    private readonly log: Logger,
  ) {}

  /**
   * A session of this device opened ("opened": a new adapter session, which holds no configuration yet) or was
   * re-announced after the adapter's link came back ("announced": it still holds the last one it applied).
   * Resolves once a push is handed to the adapter link (never rejects: failures are logged).
   */
  sessionOpened(deviceIntId: number, how: "opened" | "announced"): Promise<void> {
    const work = this.pushIfGateway(deviceIntId, how === "opened");
    this.track(work);
    return work.catch(() => {}); // logged by track
  }

  /** Several nodes: told of every change, so the nodes holding the tenant's other gateways push to them too. */
  remote: { tenantChanged(tenantId: string): void } | undefined;

  /** Something a tenant's Modbus configurations are built from changed (devices, data points, gateways). */
  tenantChanged(tenantId: string): void {
    this.tenantChangedHere(tenantId);
    this.remote?.tenantChanged(tenantId);
  }

  /** `tenantChanged` for the gateways connected to this node only (a change routed from another node). */
  tenantChangedHere(tenantId: string): void {
    this.dueTenants.add(tenantId);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const tenants = [...this.dueTenants];
      this.dueTenants.clear();
      for (const t of tenants) this.track(this.pushTenant(t));
    }, SETTLE_MS);
    this.timer.unref();
  }

  /** Waits for the pushes under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.timer) await new Promise((r) => setTimeout(r, SETTLE_MS));
    let seen: Promise<unknown>;
    do {
      seen = this.running;
      await seen;
    } while (seen !== this.running);
  }

  /** Stops gathering changes (call before closing the store). */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private track(work: Promise<unknown>): void {
    const done = work.catch((err: unknown) => this.log.error({ err }, "Modbus configuration push failed"));
    this.running = Promise.all([this.running, done]);
  }

  private async pushTenant(tenantId: string): Promise<void> {
    // No Modbus adapter attached here: no gateway of any tenant is online on this node, and reading the tenant's
    // devices for its gateways (a scan of its list index, 5-10 ms at 100,000 devices) after every burst of writes
    // to its devices would find none to push to.
    if (!this.sessions.links().some((l) => l.protocol === MODBUS_PROTOCOL)) return;
    const gateways = await this.db
      .selectFrom("devices")
      .select("id")
      .where("tenantId", "=", tenantId)
      .where("deviceType", "=", 2)
      .where("gatewayProtocol", "=", MODBUS_PROTOCOL)
      .execute();
    for (const g of gateways) if (this.sessions.isOnline(g.id)) await this.pushIfGateway(g.id, false);
  }

  private async pushIfGateway(deviceIntId: number, always: boolean): Promise<void> {
    const gateway = await this.db
      .selectFrom("devices")
      .select(["id", "tenantId", "deviceName", "channel", "gatewayProtocol", "deviceType"])
      .where("id", "=", deviceIntId)
      .executeTakeFirst();
    if (!gateway || gateway.deviceType !== 2 || gateway.gatewayProtocol !== MODBUS_PROTOCOL) return;
    const config = await this.configOf(gateway.id, gateway.deviceName, gateway.channel);
    const payload = JSON.stringify(config);
    if (!always && payload === (await this.lastPayload(gateway.id))) return;
    this.lastPushed.set(gateway.id, payload);
    // The registry itself issues it: the gateway control log names "system" as its creator.
    const caller: Caller = {
      userIntId: 0,
      username: "system",
      tenantId: gateway.tenantId,
      role: "admin",
      serviceAdmin: false,
    };
    const r = await this.commands.publish(caller, {
      deviceIntId: gateway.id,
      topic: MODBUS_CONFIG_TOPIC,
      payload,
      qos: 1,
    });
    this.log.info(
      { gateway: gateway.id, controlLog: r.id, tags: config.channel[0]!.device.length },
      "Modbus configuration pushed",
    );
  }

  /** The last configuration pushed to the gateway: remembered, else its latest stored push that was applied. */
  private async lastPayload(gatewayIntId: number): Promise<string | undefined> {
    const known = this.lastPushed.get(gatewayIntId);
    if (known !== undefined) return known;
    const row = await this.db
      .selectFrom("controlLogs")
      .select("payload")
      .where("deviceIntId", "=", gatewayIntId)
      .where("topic", "=", MODBUS_CONFIG_TOPIC)
      .where("publishStatus", "=", PUBLISH_STATUS.delivered)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return row?.payload;
  }

  private async configOf(gatewayIntId: number, gatewayName: string, channel: string | null): Promise<ChannelConfig> {
    const devices = await this.db
      .selectFrom("devices as d")
      .innerJoin("products as p", "p.id", "d.productIntId")
      .select(["d.deviceId", "d.modBusIndex", "d.metaData", "d.productIntId"])
      .where("d.gateway", "=", gatewayIntId)
      .where("d.modBusIndex", "is not", null)
      .where("p.cloudProtocol", "=", MODBUS_PROTOCOL)
      .execute();
    const productIds = [...new Set(devices.map((d) => d.productIntId))];
    const points =
      productIds.length === 0
        ? []
        : await this.db
            .selectFrom("dataPoints")
            .select([
              "productIntId",
              "dataPointId",
              "pointDataType",
              "dataTransType",
              "binarySize",
              "registerAddr",
              "upperLimit",
              "lowerLimit",
            ])
            .where("productIntId", "in", productIds)
            .where("registerAddr", "is not", null)
            .execute();
    const slaves = devices.map((d): Slave => ({
      deviceId: d.deviceId,
      modBusIndex: d.modBusIndex!,
      pollInterval: slavePollInterval(d.metaData),
      points: points
        .filter((p) => p.productIntId === d.productIntId)
        .map(({ productIntId: _p, registerAddr, ...p }) => ({ ...p, registerAddr: registerAddr! })),
    }));
    return buildChannelConfig(gatewayName, channelSettings(channel), slaves);
  }
}
