import type { Logger } from "pino";
import { AdapterError, Backoff, isAllowed, type DeviceSession, type RegistryClient } from "@iot/adapter-core";
import type { ModbusValue } from "./codec/value-codec.js";

/** The topic polled values are sent on, relative to the slave's mountpoint. */
export const UPLINK_TOPIC = "up/modbus";

/** The gateway a slave is polled through: its token credentials and, once authenticated, its session. */
export interface GatewayIdentity {
  readonly deviceId: string;
  readonly username: string;
  readonly token: string;
  /** The gateway's open session; slaves authenticate only while there is one. */
  session(): DeviceSession | undefined;
}

/** What a slave session needs from the adapter. */
export interface SlaveSessionOptions {
  readonly registry: RegistryClient;
  readonly gateway: GatewayIdentity;
  readonly unit: number;
  /** The slaves' address as a session's clientIp: the TCP host or the serial port. */
  readonly clientIp: string;
  /** The unit's poll interval, ms (keepAlive is three of them). */
  readonly intervalMs: number;
  readonly policyDefault: "allow" | "deny";
  readonly logger: Logger;
  /** Told when a session opened, so the values read so far are all sent in it. */
  readonly opened: () => void;
  /** Delays between refused authentications and after a kick (default 1 s doubling to 60 s). */
  readonly backoffInitialMs?: number;
}

/**
 * The registry session of one Modbus slave (unit) under its gateway. It opens when the slave answers: the adapter
 * authenticates it with the gateway's credentials and the unit id (the registry finds the device by its gateway and
 * modBusIndex) and reports it open with keepAlive = three poll intervals. It closes when the slave stops answering,
 * leaves the configuration or is kicked; a refused or kicked slave is asked for again after a backoff, on its next
 * answer. Values go out as uplinks on `up/modbus`, relayed by the gateway.
 */
export class SlaveSession {
  private session: DeviceSession | undefined;
  private authenticating = false;
  /** The slave answered since its session last ended: a session is wanted. */
  private wanted = false;
  private closed = false;
  private retryAt = 0;
  private readonly backoff: Backoff;
  private dropping = false;

  constructor(private readonly options: SlaveSessionOptions) {
    const initialMs = options.backoffInitialMs ?? 1000;
    this.backoff = new Backoff({ initialMs, maxMs: Math.max(initialMs, 60_000) });
  }

  /** The open session, if any. */
  get current(): DeviceSession | undefined {
    return this.session;
  }

  /** The slave answered: authenticate it unless it has a session, one is being asked for, or it must wait. */
  answered(): void {
    this.wanted = true;
    const gateway = this.options.gateway.session();
    if (this.closed || this.session || this.authenticating || !gateway || Date.now() < this.retryAt) return;
    this.authenticating = true;
    void this.authenticate().finally(() => (this.authenticating = false));
  }

  /** Sends values as an uplink of the slave; without a session they are dropped (sent again in full once it opens). */
  publish(values: Readonly<Record<string, ModbusValue>>): void {
    const session = this.session;
    const gateway = this.options.gateway.session();
    if (!session) return;
    if (!isAllowed(session.policies, "publish", UPLINK_TOPIC, this.options.policyDefault === "allow")) {
      this.options.logger.warn({ topic: UPLINK_TOPIC }, "values dropped: publishing denied by the device's policies");
      return;
    }
    const { device } = session;
    this.options.registry
      .publish({
        sessionId: session.sessionId,
        tenantId: device.tenantId,
        deviceIntId: device.deviceIntId,
        topic: UPLINK_TOPIC,
        payload: new TextEncoder().encode(JSON.stringify(values)),
        qos: 1,
        clientIp: this.options.clientIp,
        receivedAtMs: Date.now(),
        ...(gateway ? { gatewayDeviceIntId: gateway.device.deviceIntId } : {}),
      })
      .then(
        () => {
          if (this.dropping) this.options.logger.info("values are stored again");
          this.dropping = false;
        },
        (err: unknown) => this.notStored(err),
      );
  }

  /** Ends the session (reported closed with `reason`); the slave may open a new one on its next answer. */
  end(reason: string): void {
    this.wanted = false;
    const session = this.session;
    this.session = undefined;
    if (session) this.options.registry.sessionClosed(session, reason);
  }

  /** The registry kicked the slave: end the session and ask again only after a backoff. */
  kicked(reason: string): void {
    this.end(`kicked: ${reason}`);
    this.retryAt = Date.now() + this.backoff.next();
  }

  /** The unit is gone from the configuration: end the session and never open another. */
  close(reason: string): void {
    this.closed = true;
    this.end(reason);
  }

  private async authenticate(): Promise<void> {
    const { registry, gateway, unit, clientIp, logger } = this.options;
    const outcome = await registry.authenticate(
      "modbus",
      {
        kind: "modbus",
        gatewayDeviceId: gateway.deviceId,
        gatewayUsername: gateway.username,
        gatewayToken: gateway.token,
        index: unit,
      },
      clientIp,
    );
    if (!outcome.ok) {
      const retryInMs = this.backoff.next();
      this.retryAt = Date.now() + retryInMs;
      logger.warn({ code: outcome.code, reason: outcome.message, retryInMs }, "slave not admitted by the registry");
      return;
    }
    if (this.closed || !this.wanted || !gateway.session()) return;
    this.backoff.reset();
    this.session = outcome.session;
    const keepAlive = Math.ceil((this.options.intervalMs * 3) / 1000);
    registry.sessionOpened(outcome.session, { clientIp, keepAlive });
    logger.info({ deviceIntId: outcome.session.device.deviceIntId }, "slave session open");
    this.options.opened();
  }

  private notStored(err: unknown): void {
    const code = err instanceof AdapterError ? err.code : undefined;
    // Over the tenant's uplink rate (maxUplinkRate): the registry client logs it once per tenant every 10 s.
    if (code === "RATE_LIMITED") return;
    if (code === "BUFFER_FULL" && this.dropping) return;
    this.dropping = code === "BUFFER_FULL";
    this.options.logger.warn({ code, reason: (err as Error).message }, "values not stored");
  }
}
