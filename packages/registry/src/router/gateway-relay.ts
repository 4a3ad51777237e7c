import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** Where an uplink belongs: a device (and the gateway that relayed it), or nowhere. */
export type RelayTarget = { deviceIntId: number; gatewayIntId: number | null; topic: string } | { rejected: string };

interface GatewayEntry {
  isGateway: boolean;
  /** deviceID → device int id of the gateway's own devices. */
  children: Map<string, number>;
  loadedAt: number;
}

const RELAY_TOPIC = /^devices\/([^/]+)\/(.+)$/;

/**
 * Resolves gateway relays: a gateway's publish to
 * `devices/<childDeviceID>/<topic>` is an uplink of that child, on `<topic>`.
 * A relay naming a device that is not the gateway's is rejected. Other topics,
 * and every topic of a device that is not a gateway, stay the publisher's own.
 * Gateways and their children are cached (`maxAgeMs`); an unknown child
 * triggers one reload, so a device created a moment ago is found.
 */
export class GatewayRelay {
  private readonly cache = new Map<number, GatewayEntry>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxAgeMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the topic could be a relay: only those need `resolve`. */
  static isRelayTopic(topic: string): boolean {
    return RELAY_TOPIC.test(topic);
  }

  async resolve(deviceIntId: number, topic: string): Promise<RelayTarget> {
    const m = RELAY_TOPIC.exec(topic);
    if (!m) return { deviceIntId, gatewayIntId: null, topic };
    let entry = await this.entry(deviceIntId, false);
    if (!entry.isGateway) return { deviceIntId, gatewayIntId: null, topic };
    let child = entry.children.get(m[1]!);
    if (child === undefined && this.now() - entry.loadedAt > 500) {
      entry = await this.entry(deviceIntId, true);
      child = entry.children.get(m[1]!);
    }
    if (child === undefined) return { rejected: `"${m[1]}" is not a device of this gateway` };
    return { deviceIntId: child, gatewayIntId: deviceIntId, topic: m[2]! };
  }

  private async entry(gatewayIntId: number, reload: boolean): Promise<GatewayEntry> {
    const cached = this.cache.get(gatewayIntId);
    if (cached && !reload && this.now() - cached.loadedAt < this.maxAgeMs) return cached;
    const row = await this.db
      .selectFrom("devices")
      .select("deviceType")
      .where("id", "=", gatewayIntId)
      .executeTakeFirst();
    const isGateway = row?.deviceType === 2;
    const children = isGateway
      ? await this.db.selectFrom("devices").select(["id", "deviceId"]).where("gateway", "=", gatewayIntId).execute()
      : [];
    const entry = { isGateway, children: new Map(children.map((c) => [c.deviceId, c.id])), loadedAt: this.now() };
    this.cache.set(gatewayIntId, entry);
    return entry;
  }
}
