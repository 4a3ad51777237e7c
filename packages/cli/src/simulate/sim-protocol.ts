import type { ApiClient } from "../client.js";
import type { CloudProtocol } from "./sim-records.js";

/** A simulated device as the API lists it (the members the protocols use). */
export interface SimDevice {
  readonly id: number;
  readonly deviceID: string;
  readonly deviceName: string;
  readonly deviceUsername: string;
  readonly token: string;
  /** LwM2M devices: their endpoint name. */
  readonly IMEI?: string | null;
  /** Modbus devices: their unit id. */
  readonly modBusIndex?: number | null;
}

/**
 * Sends one message for a device; resolves when it counts as arrived (acknowledged by the adapter: QoS 1, CON, HTTP
 * 2xx answered once stored; or seen stored through the API), rejects with the reason otherwise.
 */
export type Send = (device: SimDevice, index: number, payload: string) => Promise<void>;

/** A protocol's sender, opened for a set of devices and closed at the end. */
interface Sender {
  readonly send: Send;
  close(): Promise<void>;
}

/** What a protocol's hooks get. */
export interface SimContext {
  readonly client: ApiClient;
  /** The product `sim-<protocol>`. */
  readonly productID: string;
  /** Where the protocol's adapter (or, for Modbus, the registry) is: --target or the protocol's default. */
  readonly target: string;
  /** --registry-token (else IOT_REGISTRY_TOKEN): for protocols that run an adapter in the CLI (Modbus). */
  readonly registryToken?: string | undefined;
}

/**
 * One simulated protocol: adding a protocol to `iot simulate` is one file exporting such an object, listed in
 * protocols.ts. The command finds or creates the product `sim-<name>` and the devices `sim-<name>-<i>`; the protocol
 * adds what its devices need and how messages are sent.
 */
export interface SimProtocol<P = unknown> {
  /** The --protocol value. */
  readonly name: string;
  /** cloudProtocol of the product (a code the API's document lists). */
  readonly cloudProtocol: CloudProtocol;
  /** --target's default when `broker` is not given; `{host}` is the API's host. */
  readonly defaultTarget: string;
  /**
   * Where the fleet says its devices connect: the member of `GET /health`'s `brokers` (the Form 2 broker address,
   * `host:port`) --target defaults to, and the URL scheme put before it.
   */
  readonly broker?: { readonly field: string; readonly scheme: string };
  /**
   * True when `send` resolves only once the API lists the message as stored (StoredWatch). Otherwise an
   * acknowledgement may come from anything listening at the target, so the command counts the stored uplinks after
   * the run and fails when some are missing.
   */
  readonly confirmsStored?: boolean;
  /** Most devices one run can simulate (Modbus: unit ids), default unlimited. */
  readonly maxDevices?: number;
  /** Finds or creates what the devices need before they are created (data points, a gateway). */
  prepare?(ctx: SimContext): Promise<P>;
  /** Members of device `i`'s creation body beyond productID and deviceName (protocol rules: IMEI, modBusIndex…). */
  deviceBody(i: number, prepared: P): Record<string, unknown>;
  /** Opens the sender for the devices (connections, registrations, simulated slaves). */
  open(ctx: SimContext, devices: readonly SimDevice[], prepared: P): Promise<Sender>;
}

/** The topic simulated messages go to on MQTT, CoAP and HTTP (relative to each device). */
export const SIM_TOPIC = "sim";

/** Creation body members of a device connected to the cloud with a token. */
export const DIRECT_DEVICE = { upLinkSystem: 1, authType: 1 } as const;
