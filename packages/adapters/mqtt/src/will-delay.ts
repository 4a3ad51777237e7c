import type { AedesOptions, Client } from "aedes";
import type { AdapterContext } from "./context.js";

type AuthorizePublish = NonNullable<AedesOptions["authorizePublish"]>;
type PreConnect = NonNullable<AedesOptions["preConnect"]>;
type ConnectPacket = Parameters<PreConnect>[1];
type Done = Parameters<AuthorizePublish>[2];

/** Longest a single Node timer runs, ms (2^31 - 1); a longer delay is waited in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What an MQTT 5.0 CONNECT said that the will delay needs. */
interface Noted {
  /** The will object aedes hands authorizePublish when it publishes the will. */
  readonly will: object | undefined;
  /** Will Delay Interval, seconds (0 when absent). */
  readonly delaySeconds: number;
  /** Clean Start: a connection with it set discards the session an earlier connection left, will included. */
  readonly cleanStart: boolean;
}

/** A will waiting for its delay. */
interface Held {
  /** The connection the will belongs to. */
  readonly client: Client;
  /** Publishes it now (through the adapter's publish path, as an immediate will). */
  fire(): void;
  /** Drops it: its session continues on a new connection. */
  cancel(): void;
}

/**
 * MQTT 5.0 Will Delay Interval (§3.1.3.2.2), timed by the adapter. The delay is taken out of the will at CONNECT, so
 * aedes publishes the will when the connection ends (after a drop, or DISCONNECT 0x04) as any other; this holds it
 * there, in the publish hook, with the connection's device session, mountpoint and policies, for
 * min(will delay, session expiry) seconds: then it goes the normal uplink path. A new connection with the same
 * client id before that (the same device: the id is the device's) continues the session and drops the will
 * (MQTT-3.1.3-9), unless it sets Clean Start, which ends the old session and so sends the will at once. The session
 * expiry is aedes' negotiated one (the session itself lives in the registry's store, docs/devices/mqtt.md).
 *
 * Adapter shutdown ends every session this process holds: pending wills are published then, before the broker
 * closes (so aedes' own delayed-will timers, which it clears silently on close, are never used, and its
 * 'willDropped' never fires). A device reconnecting to another adapter instance is not seen here: its will still
 * goes after the delay.
 */
export class DelayedWills {
  private readonly noted = new WeakMap<Client, Noted>();
  /** Held wills by aedes client id (one per device). */
  private readonly held = new Map<string, Held>();

  constructor(private readonly ctx: AdapterContext) {}

  /** Wraps the preConnect hook: notes the CONNECT's will delay, Clean Start and session expiry first. */
  preConnect(inner: PreConnect): PreConnect {
    return (client, packet, done) => {
      this.note(client, packet);
      inner(client, packet, done);
    };
  }

  /** Wraps the publish hook: a will with a delay is held, anything else goes straight through. */
  authorizePublish(inner: AuthorizePublish): AuthorizePublish {
    return (client, packet, done) => {
      const noted = client ? this.noted.get(client) : undefined;
      if (!client || !noted || noted.will !== packet || noted.delaySeconds === 0 || this.ctx.closing)
        return inner(client, packet, done);
      const seconds = Math.min(noted.delaySeconds, client.sessionExpiryInterval);
      if (seconds === 0) return inner(client, packet, done);
      const newer = this.newerConnection(client);
      if (newer) return this.noted.get(newer)?.cleanStart ? inner(client, packet, done) : dropped(done);
      this.hold(client, seconds * 1000, () => inner(client, packet, done), done);
    };
  }

  /** A connection was registered (aedes' 'client'): the will its client id left waiting is dropped or sent now. */
  connected(client: Client): void {
    const held = this.held.get(client.id);
    if (!held || held.client === client) return;
    if (this.noted.get(client)?.cleanStart) held.fire();
    else held.cancel();
  }

  /** Adapter shutdown: every held will is published now (its session ends with the adapter). */
  flush(): void {
    for (const held of [...this.held.values()]) held.fire();
  }

  private note(client: Client, packet: ConnectPacket): void {
    if (packet.protocolVersion !== 5) return;
    const properties = packet.will?.properties;
    const delaySeconds = properties?.willDelayInterval ?? 0;
    // Gone before aedes reads it: aedes publishes the will at once, to the hook above.
    if (properties && "willDelayInterval" in properties) delete properties.willDelayInterval;
    this.noted.set(client, {
      will: packet.will,
      delaySeconds,
      cleanStart: packet.clean !== false,
    });
  }

  /** A live connection of the same client id other than `client` (one that raced it in), if any. */
  private newerConnection(client: Client): Client | undefined {
    const state = this.ctx.clients.state(client);
    if (!state) return undefined;
    return this.ctx.clients.ofDevice(state.session.device.deviceIntId).find((c) => c !== client && c.id === client.id);
  }

  private hold(client: Client, delayMs: number, publish: () => void, done: Done): void {
    const id = client.id;
    this.held.get(id)?.fire(); // an older will of the id (not expected: reconnects drop it) goes first
    const log = this.ctx.log.child({ clientId: id });
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      clearTimeout(timer);
      if (this.held.get(id) === held) this.held.delete(id);
    };
    const held: Held = {
      client,
      fire: () => {
        release();
        log.debug("delayed will published");
        publish();
      },
      cancel: () => {
        release();
        log.debug("delayed will dropped: the device reconnected");
        dropped(done);
      },
    };
    this.held.set(id, held);
    const wait = (left: number) => {
      timer = setTimeout(
        () => (left > MAX_TIMER_MS ? wait(left - MAX_TIMER_MS) : held.fire()),
        Math.min(left, MAX_TIMER_MS),
      );
      timer.unref();
    };
    wait(delayMs);
    log.debug({ delayMs }, "will delayed");
  }
}

/** Tells aedes the will is not to be published (it then only forgets it). */
function dropped(done: Done): void {
  done(new Error("will not sent: its session continues on a new connection"));
}
