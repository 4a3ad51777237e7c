import { MemoryLink, type MessageLayer, type MessageLayerOptions } from "@iot/adapter-coap";
import {
  FakeRegistryClient,
  type AuthOutcome,
  type DeviceCredentials,
  type FakeDevice,
  type ProtocolName,
} from "@iot/adapter-core";
import pino from "pino";
import { Lwm2mClientSimulator, type SimulatorOptions } from "./lwm2m-client-simulator.js";
import { createLwm2mServer } from "./lwm2m-server.js";
import type { Lwm2mServer, Lwm2mServerOptions } from "./lwm2m-server-types.js";

/** The IMEI the harness's device registers with. */
export const IMEI = "490154203237518";

/** A device of an LwM2M product as the fake registry holds it. */
const lwm2mDevice = (over: Partial<FakeDevice> = {}): FakeDevice => ({
  deviceIntId: 7,
  deviceId: "meter-7",
  username: "meter-7",
  token: "unused",
  imei: IMEI,
  ...over,
});

/**
 * The fake registry, answering a PSK identity as the registry does for LwM2M: the device whose IMEI it is; and a
 * Bootstrap-Request of a device whose settings ask for PSK with its keys.
 */
class PskAsEndpointRegistry extends FakeRegistryClient {
  /** The PSK identities asked, with the asking adapter. */
  readonly pskAsked: { protocol: ProtocolName; identity: string }[] = [];

  override async authenticate(p: ProtocolName, c: DeviceCredentials, ip: string): Promise<AuthOutcome> {
    if (c.kind === "lwm2m" && c.bootstrap) {
      const outcome = await super.authenticate(p, { kind: "lwm2m", endpoint: c.endpoint }, ip);
      if (!outcome.ok || outcome.session.lwm2mBootstrap?.securityMode !== "psk") return outcome;
      return { ok: true, session: { ...outcome.session, pskKeys: [Buffer.from("key")] } };
    }
    if (c.kind !== "psk") return super.authenticate(p, c, ip);
    this.pskAsked.push({ protocol: p, identity: c.identity });
    const outcome = await super.authenticate(p, { kind: "lwm2m", endpoint: c.identity }, ip);
    return outcome.ok ? { ok: true, session: { ...outcome.session, pskKeys: [Buffer.from("key")] } } : outcome;
  }
}

/** A server, a fake registry and one simulated client joined in memory (tests only). */
export interface Harness {
  readonly registry: PskAsEndpointRegistry;
  readonly server: Lwm2mServer;
  readonly client: Lwm2mClientSimulator;
  readonly link: MemoryLink;
  /** The uplinks on a topic, parsed. */
  uplinks(topic: string): Record<string, unknown>[];
  close(): void;
}

/** Builds a {@link Harness}; CoAP timing is shortened so a silent client times out within a second. */
export function memoryHarness(
  options: {
    device?: Partial<FakeDevice>;
    client?: Partial<SimulatorOptions>;
    server?: Partial<Lwm2mServerOptions>;
    /** Both layers' CoAP options over the harness's short timing (e.g. `requestTimeoutMs`). */
    layer?: Partial<MessageLayerOptions>;
    /** The device layer's own options (e.g. `nstart: 2` to send two requests at once). */
    deviceLayer?: Partial<MessageLayerOptions>;
    /** The link is the DTLS listener's: the server's secure handler (the test tells it of sessions). */
    secure?: boolean;
  } = {},
): Harness {
  const registry = new PskAsEndpointRegistry({ devices: [lwm2mDevice(options.device)] });
  registry.start();
  const server = createLwm2mServer({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    queueAwakeSeconds: 93,
    ...options.server,
  });
  const client = new Lwm2mClientSimulator({ endpoint: IMEI, ...options.client });
  const link = new MemoryLink(
    options.secure ? server.secureHandler : server.handler,
    client.handler,
    {
      ackTimeoutMs: 100,
      ackRandomFactor: 1,
      maxRetransmit: 1,
      requestTimeoutMs: 500,
      ...options.layer,
    },
    options.deviceLayer,
  );
  if (options.secure) server.attach(link.server, link.server);
  else server.attach(link.server);
  client.attach(link.device as MessageLayer, link.serverPeer);
  return {
    registry,
    server,
    client,
    link,
    uplinks: (topic) =>
      registry.uplinks
        .filter((u) => u.topic === topic)
        .map((u) => JSON.parse(Buffer.from(u.payload).toString("utf8")) as Record<string, unknown>),
    close() {
      server.close();
      link.close();
    },
  };
}
