import { mountTopic, type RetainedMessage } from "@iot/adapter-core";
import { commandPublishProperties, type CommandPublishProperties } from "./command-properties.js";

/** The retained part of aedes' persistence interface (aedes-persistence's `storeRetained`). */
export interface RetainedStore {
  storeRetained(packet: RetainedPacket): Promise<void>;
}

/** A retained PUBLISH as aedes keeps it and sends it at SUBSCRIBE (mounted topic). */
export interface RetainedPacket {
  cmd: "publish";
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: true;
  dup: false;
  properties?: CommandPublishProperties;
}

/**
 * The retained messages of the devices connected here (DESIGN §4: a retained command is the device's desired state
 * on its topic, a retained uplink the topic's last reported value), kept in aedes' own retained store under each
 * device's mountpoint. aedes then answers every SUBSCRIBE from it as MQTT says: each retained message a granted
 * filter matches, RETAIN=1 (MQTT 3.1.1 §3.3.1.3, MQTT-3.3.1-6; MQTT 5.0 §3.3.1.3), none for Retain Handling 2, and
 * for Retain Handling 1 only on a new subscription (MQTT 5.0 §3.8.3.1); the QoS is capped at the granted one by
 * authorizeForward, which also checks the device's subscribe policies. The registry is the store: it sends a
 * device's set with its authentication and again whenever it changes (RetainedUpdate), and the set is forgotten
 * here when the device's last connection ends. A mountpoint confines a device's filters to its own namespace, so
 * one store serves every device without one seeing another's.
 */
export class RetainedTable {
  private readonly held = new Map<number, { mountpoint: string; topics: Map<string, RetainedPacket> }>();

  constructor(private readonly store: RetainedStore) {}

  /** Replaces the device's retained messages (all of them, one per topic). */
  set(deviceIntId: number, mountpoint: string, retained: readonly RetainedMessage[]): void {
    const before = this.held.get(deviceIntId)?.topics ?? new Map<string, RetainedPacket>();
    const now = new Map<string, RetainedPacket>();
    for (const m of retained) {
      const packet = retainedPacket(mountpoint, m);
      now.set(packet.topic, packet);
      void this.store.storeRetained(packet);
    }
    for (const topic of before.keys()) if (!now.has(topic)) void this.store.storeRetained(cleared(topic));
    this.held.set(deviceIntId, { mountpoint, topics: now });
  }

  /** A RetainedUpdate: applied when the device is connected here, ignored otherwise (its next session brings it). */
  update(deviceIntId: number, retained: readonly RetainedMessage[]): void {
    const entry = this.held.get(deviceIntId);
    if (entry) this.set(deviceIntId, entry.mountpoint, retained);
  }

  /**
   * One retained message of the device set (an empty payload clears it) ahead of the registry's RetainedUpdate: the
   * device's own retained uplink, once the registry stored it, so its next SUBSCRIBE here sees it.
   */
  put(deviceIntId: number, message: RetainedMessage): void {
    const entry = this.held.get(deviceIntId);
    if (!entry) return;
    const packet = retainedPacket(entry.mountpoint, message);
    if (packet.payload.length === 0) entry.topics.delete(packet.topic);
    else entry.topics.set(packet.topic, packet);
    void this.store.storeRetained(packet);
  }

  /** Forgets the device's retained messages (its last connection here ended). */
  drop(deviceIntId: number): void {
    const entry = this.held.get(deviceIntId);
    if (!entry) return;
    this.held.delete(deviceIntId);
    for (const topic of entry.topics.keys()) void this.store.storeRetained(cleared(topic));
  }
}

/** The retained PUBLISH of a message: its MQTT 5.0 properties without an expiry (a desired state does not expire). */
function retainedPacket(mountpoint: string, m: RetainedMessage): RetainedPacket {
  const properties = m.properties
    ? commandPublishProperties({ properties: m.properties, expiresAtMs: 0 }, 0)
    : undefined;
  return {
    cmd: "publish",
    topic: mountTopic(mountpoint, m.topic),
    payload: Buffer.from(m.payload),
    qos: Math.min(m.qos, 2) as 0 | 1 | 2,
    retain: true,
    dup: false,
    ...(properties ? { properties } : {}),
  };
}

/** The zero-byte retained PUBLISH that removes a topic's (MQTT-3.3.1-10). */
const cleared = (topic: string): RetainedPacket => ({
  cmd: "publish",
  topic,
  payload: Buffer.alloc(0),
  qos: 0,
  retain: true,
  dup: false,
});
