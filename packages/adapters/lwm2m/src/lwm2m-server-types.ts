import type { X509Certificate } from "node:crypto";
import type { CoapReply, CoapRequest, MessageLayer, SecureTarget } from "@iot/adapter-coap";
import type { RegistryClient } from "@iot/adapter-core";
import type { Logger } from "pino";
import type { BootstrapDefaults } from "./bootstrap/bootstrap-plan.js";
import type { ClientRegistration } from "./client-registration.js";
import type { FirmwareDownloads } from "./firmware/firmware-downloads.js";

/** What the LwM2M server needs from outside. */
export interface Lwm2mServerOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly policyDefault: "allow" | "deny";
  /**
   * Seconds a queue-mode client stays awake after each Register or Update (IOT_LWM2M_QUEUE_AWAKE; the default
   * 93 is CoAP's MAX_TRANSMIT_WAIT, the awake time OMA-TS-LightweightM2M-V1_0 §5.3.1 recommends).
   */
  readonly queueAwakeSeconds: number;
  /**
   * Seconds a registration outlives its lifetime before it expires, for an Update that is late on the wire (default
   * 15; never more than the lifetime itself, so a 2 s test lifetime expires after 4 s).
   */
  readonly lifetimeGraceSeconds?: number;
  /** Most commands kept waiting per sleeping device (default 100; the oldest fails when full). */
  readonly queueLimit?: number;
  /** The service CA device certificates chain to (LwM2M Security mode Certificate); without it they are refused. */
  readonly ca?: X509Certificate;
  /** What a Bootstrap-Request writes when the device's record does not say (default: coap://localhost:5783, 300 s, U). */
  readonly bootstrapDefaults?: () => BootstrapDefaults;
  /**
   * The URI prefix devices download firmware packages from (`coap://host:port`), by the transport they registered
   * on; without it, firmware update commands take push delivery only.
   */
  readonly firmwareBaseUri?: (secure: boolean) => string | undefined;
  /**
   * The file registrations and their observations are kept in, so that a restarted adapter takes them back
   * (`restore`); unset, they live in memory only.
   */
  readonly registrationsFile?: string;
  /** Longest wait for each step a device takes by itself in a firmware update, ms (default 10 minutes). */
  readonly firmwareStepTimeoutMs?: number;
}

/** The LwM2M server: a handler for the CoAP message layer, which it then uses as a client to reach devices. */
export interface Lwm2mServer {
  /** Serves the Client Registration Interface (`/rd`) in NoSec mode; give it to createMessageLayer. */
  readonly handler: (request: CoapRequest) => Promise<CoapReply>;
  /** The same over DTLS with pre-shared keys: give it to the layer fed by `secure`. */
  readonly secureHandler: (request: CoapRequest) => Promise<CoapReply>;
  /** What listenDtls feeds (PSK lookups, sessions, decrypted datagrams to the layer attached as `secureLayer`). */
  readonly secure: SecureTarget;
  /**
   * Gives the server the layers its handlers serve, through which it sends requests to clients registered there;
   * before any datagram.
   */
  attach(layer: MessageLayer, secureLayer?: MessageLayer): void;
  /** Registrations held now, by location id. */
  readonly registrations: ReadonlyMap<string, ClientRegistration>;
  /** Bootstraps under way now. */
  readonly bootstrapping: number;
  /** Firmware packages offered for download now (pull delivery). */
  readonly downloads: FirmwareDownloads;
  /**
   * Takes back the unexpired NoSec registrations the previous process saved (registrationsFile) and observes their
   * paths again; after attach and once the registry link is started. Answers how many.
   */
  restore(): Promise<number>;
  /** Ends every registration (sessions reported closed) and observation. */
  close(): void;
}
