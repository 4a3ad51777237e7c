import { dispatchDownlink } from "./downlink-dispatch.js";
import { AdapterError } from "./errors.js";
import { LiveSessions, type LiveSession } from "./live-sessions.js";
import { TenantRateLimiter } from "./tenant-rate-limiter.js";
import type { LoraActivateResult, LoraCounterReport, LoraSessionInfo } from "./lora-types.js";
import type {
  AuthOutcome,
  DeviceCredentials,
  DeviceSession,
  MqttSessionReport,
  Downlink,
  DownlinkOutcome,
  ListenerCertificate,
  ProtocolName,
  RegistryClient,
  ProxySubscription,
  RegistryHandlers,
  RetainedMessage,
  RegistryLinkState,
  SessionInfo,
  TopicPolicy,
  Uplink,
  UplinkSettled,
} from "./registry-client.js";
import type { FakeDevice, FakeSessionEvent, RecordedUplink } from "./fake-registry-types.js";
import { refuseUplink, UplinkBuffer, uplinkPromise } from "./uplink-buffer.js";

/**
 * An in-process registry for adapter unit tests: a devices table in memory,
 * every uplink and session event recorded, acks automatic or held back
 * (`autoAck = false`, then `ackAll`/`rejectAll`), and downlinks, kicks and
 * policy updates pushed by the test through the same handlers the gRPC
 * client would call.
 */
export class FakeRegistryClient implements RegistryClient {
  readonly instanceId = `fake-${Math.random().toString(16).slice(2, 10)}`;
  /** Every uplink received, in seq order. */
  readonly uplinks: RecordedUplink[] = [];
  /** Every sessionOpened/sessionClosed/sessionState call, in order. */
  readonly events: FakeSessionEvent[] = [];
  /** Every authentication attempt. */
  /** Failed authentications the adapter reported (reportAuthFailure). */
  readonly authFailures: { credentials: DeviceCredentials; ip: string; reason: string }[] = [];
  readonly authAttempts: { protocol: ProtocolName; credentials: DeviceCredentials; clientIp: string }[] = [];
  /** When true, authenticate answers UNAVAILABLE (registry unreachable). */
  unavailable = false;
  /** Answers authentication after a random delay of up to this many ms (as a loaded registry does). */
  authJitterMs = 0;
  /** When false, uplinks stay pending until ackAll()/rejectAll(). */
  autoAck = true;
  /**
   * Signs listener certificate requests; unset, they are refused with
   * REQUEST_REJECTED (the fake holds no CA of its own).
   */
  listenerCertificates: ((csrPem: string, hostnames: readonly string[]) => Promise<ListenerCertificate>) | undefined;
  private linkState: RegistryLinkState = "idle";
  private readonly devices = new Map<string, FakeDevice>();
  /** LwM2M devices by IMEI, so a bench's thousands of Registers are not each a scan. */
  private readonly byImei = new Map<string, FakeDevice>();
  private readonly buffer: UplinkBuffer;
  private readonly live = new LiveSessions();
  private handlers: RegistryHandlers = {};
  private nextSession = 1;
  /** maxUplinkRate per tenant, as the registry would answer it with each session and enforce on this client. */
  private readonly rates = new TenantRateLimiter();
  /** Retained messages set by `updateRetained`, by device: answered with the device's later sessions. */
  private readonly retained = new Map<number, readonly RetainedMessage[]>();

  /** `maxMessageSize`: payloads over it are refused as the gRPC client refuses them (default 262144 bytes). */
  constructor(options: { devices?: readonly FakeDevice[]; bufferLimit?: number; maxMessageSize?: number } = {}) {
    this.buffer = new UplinkBuffer(options.bufferLimit ?? 10_000, options.maxMessageSize);
    for (const d of options.devices ?? []) this.addDevice(d);
  }

  get state(): RegistryLinkState {
    return this.linkState;
  }

  get pendingUplinks(): number {
    return this.buffer.size;
  }

  /** Adds or replaces a device (keyed by username). */
  addDevice(device: FakeDevice): void {
    const old = this.devices.get(device.username);
    if (old?.imei !== undefined && this.byImei.get(old.imei) === old) this.byImei.delete(old.imei);
    this.devices.set(device.username, device);
    if (device.imei !== undefined) this.byImei.set(device.imei, device);
  }

  async authenticate(protocol: ProtocolName, credentials: DeviceCredentials, clientIp: string): Promise<AuthOutcome> {
    this.authAttempts.push({ protocol, credentials, clientIp });
    if (this.authJitterMs > 0) await new Promise((r) => setTimeout(r, Math.random() * this.authJitterMs));
    if (this.unavailable) return { ok: false, code: "UNAVAILABLE", message: "fake registry unavailable" };
    if (credentials.kind === "modbus") return this.admitModbus(credentials);
    if (credentials.kind === "lwm2m") return this.admitLwm2m(credentials.endpoint);
    if (credentials.kind === "lora")
      return credentials.gatewayEui
        ? this.admitLoraGateway(credentials.gatewayEui)
        : this.admitLora(credentials.devEui, credentials.devAddr);
    if (credentials.kind !== "token") return { ok: false, code: "BAD_CREDENTIALS", message: "fake knows tokens only" };
    const d = this.devices.get(credentials.username);
    if (!d || d.token !== credentials.token)
      return { ok: false, code: "BAD_CREDENTIALS", message: "unknown device or wrong token" };
    if (d.blocked) return { ok: false, code: "BLOCKED", message: "device is blocked" };
    if (credentials.clientId && credentials.clientId !== d.deviceId) {
      return { ok: false, code: "NOT_ALLOWED", message: "client id is not the device's deviceID" };
    }
    return this.admit(d);
  }

  /** A Modbus slave: its gateway's token credentials, then the device of that gateway with that modBusIndex. */
  private admitModbus(credentials: Extract<DeviceCredentials, { kind: "modbus" }>): AuthOutcome {
    const gw = this.devices.get(credentials.gatewayUsername);
    if (!gw || gw.token !== credentials.gatewayToken || gw.deviceId !== credentials.gatewayDeviceId)
      return { ok: false, code: "BAD_CREDENTIALS", message: "unknown gateway or wrong token" };
    if (gw.blocked) return { ok: false, code: "BLOCKED", message: "gateway is blocked" };
    const d = [...this.devices.values()].find(
      (c) => c.gateway === gw.deviceId && c.modBusIndex === credentials.index && c.tenantId === gw.tenantId,
    );
    if (!d) return { ok: false, code: "BAD_CREDENTIALS", message: `no device with modBusIndex ${credentials.index}` };
    if (d.blocked) return { ok: false, code: "BLOCKED", message: "device is blocked" };
    return this.admit(d);
  }

  /** An LwM2M client: the device whose IMEI is the endpoint name (NoSec: nothing else is presented). */
  private admitLwm2m(endpoint: string): AuthOutcome {
    const d = this.byImei.get(endpoint);
    if (!d) return { ok: false, code: "BAD_CREDENTIALS", message: `no device has the IMEI ${endpoint}` };
    if (d.blocked) return { ok: false, code: "BLOCKED", message: "device is blocked" };
    return this.admit(d);
  }

  /** A LoRa device heard by the network server: by DevEUI (a join) or by its session's DevAddr (a data frame). */
  private admitLora(devEui: string, devAddr: string): AuthOutcome {
    const same = (a: string | undefined, b: string) => !!a && !!b && a.toUpperCase() === b.toUpperCase();
    const d = [...this.devices.values()].find(
      (c) => same(c.lora?.devEui, devEui) || same(c.lora?.session?.devAddr, devAddr),
    );
    if (!d) return { ok: false, code: "BAD_CREDENTIALS", message: devEui ? "unknown DevEUI" : "unknown DevAddr" };
    if (d.blocked) return { ok: false, code: "BLOCKED", message: "device is blocked" };
    return this.admit(d);
  }

  /** A LoRa gateway by its EUI: a gateway device whose deviceID is that EUI (any case). */
  private admitLoraGateway(eui: string): AuthOutcome {
    const d = [...this.devices.values()].find((c) => c.isGateway && c.deviceId.toLowerCase() === eui.toLowerCase());
    if (!d) return { ok: false, code: "BAD_CREDENTIALS", message: "unknown gateway EUI" };
    if (d.blocked) return { ok: false, code: "BLOCKED", message: "gateway is blocked" };
    return this.admit(d);
  }

  /** Every loraActivate call, in order. */
  readonly loraActivations: Array<{ deviceIntId: number; devNonce: number; devAddr: string }> = [];
  /** Every counter report, in order. */
  readonly loraCounterReports: LoraCounterReport[][] = [];

  loraActivate(
    deviceIntId: number,
    devNonce: number,
    session: Pick<LoraSessionInfo, "devAddr" | "nwkSKey" | "appSKey" | "lorawan11">,
  ): Promise<{ result: LoraActivateResult; message: string }> {
    this.loraActivations.push({ deviceIntId, devNonce, devAddr: session.devAddr });
    if (this.unavailable) return Promise.resolve({ result: "UNAVAILABLE", message: "fake registry unavailable" });
    const d = [...this.devices.values()].find((c) => c.deviceIntId === deviceIntId);
    if (!d?.lora || d.lora.activation !== "otaa" || !d.lora.canJoin)
      return Promise.resolve({ result: "NOT_ALLOWED", message: "not an OTAA device that may join" });
    if (!session.lorawan11?.rejoin && d.lora.usedDevNonces.includes(devNonce))
      return Promise.resolve({ result: "DEV_NONCE_REUSED", message: `DevNonce ${devNonce} was used before` });
    const taken = [...this.devices.values()].some(
      (c) => c !== d && c.lora?.session?.devAddr.toUpperCase() === session.devAddr.toUpperCase(),
    );
    if (taken) return Promise.resolve({ result: "DEV_ADDR_TAKEN", message: `DevAddr ${session.devAddr} is taken` });
    this.devices.set(d.username, {
      ...d,
      lora: {
        ...d.lora,
        session: { ...session, fcntUp: 0, fcntDown: 0 },
        usedDevNonces: session.lorawan11?.rejoin ? d.lora.usedDevNonces : [...d.lora.usedDevNonces, devNonce],
        ...(session.lorawan11 ? { nextJoinNonce: session.lorawan11.joinNonce + 1 } : {}),
      },
    });
    return Promise.resolve({ result: "OK", message: "" });
  }

  reportLoraCounters(counters: readonly LoraCounterReport[]): void {
    if (counters.length > 0) this.loraCounterReports.push([...counters]);
  }

  private admit(d: FakeDevice): AuthOutcome {
    const tenantId = d.tenantId ?? "tenant-1";
    const device = {
      tenantId,
      deviceIntId: d.deviceIntId,
      deviceId: d.deviceId,
      deviceName: d.deviceId,
      productIntId: 1,
      productId: "p1",
      mountpoint: d.mountpoint ?? `${tenantId}/${d.deviceIntId}/`,
      defaultDownlinkTopic: d.defaultDownlinkTopic ?? "inbox",
      deviceType: 1,
      isGateway: d.isGateway ?? false,
      autoSub: d.autoSub ?? false,
    };
    return {
      ok: true,
      session: {
        sessionId: `fake-session-${this.nextSession++}`,
        device,
        policies: d.policies ?? [],
        subscriptions: d.subscriptions ?? [],
        tenantUplinkRate: this.rates.rateOf(tenantId),
        ...(d.lora ? { lora: d.lora } : {}),
        ...(d.lwm2mBootstrap ? { lwm2mBootstrap: d.lwm2mBootstrap } : {}),
        ...(this.retained.has(d.deviceIntId) ? { retained: this.retained.get(d.deviceIntId) } : {}),
      },
    };
  }

  /**
   * Sets a tenant's uplink rate limit (messages per second, 0 = unlimited) as the registry's TenantLimits push does:
   * applied at once to the tenant's uplinks on this client and answered with its later sessions.
   */
  setTenantUplinkRate(tenantId: string, maxUplinkRate: number): void {
    this.rates.setRate(tenantId, maxUplinkRate);
  }

  sessionOpened(session: DeviceSession, info: SessionInfo): void {
    this.live.open(session, info);
    this.events.push({ type: "opened", session, info });
  }

  sessionClosed(session: DeviceSession, reason: string): void {
    this.live.close(session.sessionId);
    this.events.push({ type: "closed", session, reason });
  }

  reportAuthFailure(_protocol: ProtocolName, credentials: DeviceCredentials, ip: string, reason: string): void {
    this.authFailures.push({ credentials, ip, reason });
  }

  updateMqttSession(session: DeviceSession, report: MqttSessionReport): void {
    this.events.push({ type: "mqttSession", session, report });
  }

  sessionState(session: DeviceSession, sleeping: boolean): void {
    if (this.live.setSleeping(session.sessionId, sleeping)) this.events.push({ type: "state", session, sleeping });
  }

  publish(uplink: Uplink): Promise<void> {
    return uplinkPromise((settled) => this.publishThen(uplink, settled));
  }

  publishThen(uplink: Uplink, settled: UplinkSettled, waitForRoom = false): void {
    if (this.linkState === "closed")
      return refuseUplink(settled, new AdapterError("CLIENT_CLOSED", "fake registry closed"));
    if (!this.rates.take(uplink.tenantId))
      return refuseUplink(settled, new AdapterError("RATE_LIMITED", "tenant over its uplink rate (maxUplinkRate)"));
    let seq: number;
    try {
      seq = waitForRoom ? this.buffer.addOrWait(uplink, settled, this.admitted) : this.buffer.add(uplink, settled);
    } catch (err) {
      return refuseUplink(settled, err as Error);
    }
    if (seq !== 0) this.admitted(seq, uplink);
  }

  /**
   * Publishes an uplink of a device no adapter serves (deviceIntId 0) to take a place in the uplink buffer, as a busy
   * adapter's other devices would (with `autoAck` false it stays until `ackAll`); resolves once it is acked.
   */
  publishOther(tenantId = "tenant-1"): Promise<void> {
    return this.publish({
      sessionId: "s-other",
      tenantId,
      deviceIntId: 0,
      topic: "other",
      payload: new Uint8Array([1]),
      qos: 1,
      clientIp: "",
      receivedAtMs: 0,
    });
  }

  /** Uplinks waiting for room in the buffer (publishThen with `waitForRoom`). */
  get waitingUplinks(): number {
    return this.buffer.waitingCount;
  }

  private readonly admitted = (seq: number, uplink: Uplink): void => {
    this.uplinks.push({ ...uplink, seq });
    if (this.autoAck) queueMicrotask(() => this.buffer.ack(seq));
  };

  /** Acks every pending uplink; returns how many. */
  ackAll(): number {
    const pending = this.buffer.pending();
    for (const p of pending) this.buffer.ack(p.seq);
    return pending.length;
  }

  /** Rejects every pending uplink with `reason`; returns how many. */
  rejectAll(reason: string): number {
    const pending = this.buffer.pending();
    for (const p of pending) this.buffer.reject(p.seq, reason);
    return pending.length;
  }

  /** Sends a downlink as the registry would and resolves with the adapter's result. */
  pushDownlink(downlink: Partial<Downlink> & { deviceIntId: number }): Promise<DownlinkOutcome> {
    return dispatchDownlink(this.handlers, {
      id: 1,
      topic: "",
      payload: new Uint8Array(),
      qos: 1,
      expiresAtMs: 0,
      ...downlink,
    });
  }

  /** Kicks a device as the registry would. */
  kick(deviceIntId: number, reason: string): void {
    this.handlers.kick?.(deviceIntId, reason);
  }

  /** Replaces a device's policies in its live sessions, as a PolicyUpdate would. */
  updatePolicies(deviceIntId: number, policies: readonly TopicPolicy[]): void {
    this.live.applyPolicies(deviceIntId, policies);
    this.handlers.policyUpdate?.(deviceIntId, policies);
  }

  /** Replaces a device's proxy subscriptions in its live sessions, as a SubscriptionUpdate would. */
  updateSubscriptions(deviceIntId: number, subscriptions: readonly ProxySubscription[]): void {
    const previous = this.live.applySubscriptions(deviceIntId, subscriptions);
    this.handlers.subscriptionUpdate?.(deviceIntId, subscriptions, previous);
  }

  /** Replaces a device's retained messages, as a RetainedUpdate would; its later sessions are admitted with them. */
  updateRetained(deviceIntId: number, retained: readonly RetainedMessage[]): void {
    this.retained.set(deviceIntId, retained);
    this.handlers.retainedUpdate?.(deviceIntId, retained);
  }

  /** Sessions currently reported open. */
  liveSessions(): LiveSession[] {
    return this.live.all();
  }

  setHandlers(handlers: RegistryHandlers): void {
    this.handlers = handlers;
  }

  async issueListenerCertificate(csrPem: string, hostnames: readonly string[]): Promise<ListenerCertificate> {
    if (!this.listenerCertificates)
      throw new AdapterError("REQUEST_REJECTED", "fake registry issues no listener certificates");
    return this.listenerCertificates(csrPem, hostnames);
  }

  start(): void {
    if (this.linkState === "idle") this.linkState = "connected";
  }

  async close(): Promise<void> {
    this.linkState = "closed";
    this.buffer.failAll(new AdapterError("CLIENT_CLOSED", "fake registry closed"));
  }
}
