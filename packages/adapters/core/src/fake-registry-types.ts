import type { LoraDeviceInfo } from "./lora-types.js";
import type {
  DeviceSession,
  Lwm2mBootstrapSettings,
  MqttSessionReport,
  ProxySubscription,
  SessionInfo,
  TopicPolicy,
  Uplink,
} from "./registry-client.js";

/** A device the fake registry knows; omitted fields get test-friendly defaults. */
export interface FakeDevice {
  readonly deviceIntId: number;
  readonly deviceId: string;
  readonly username: string;
  readonly token: string;
  /** Default "tenant-1". */
  readonly tenantId?: string;
  readonly blocked?: boolean;
  readonly isGateway?: boolean;
  readonly policies?: readonly TopicPolicy[];
  readonly subscriptions?: readonly ProxySubscription[];
  /** Default `<tenantId>/<deviceIntId>/`. */
  readonly mountpoint?: string;
  /** Default "inbox". */
  readonly defaultDownlinkTopic?: string;
  /** LwM2M devices: the endpoint name they register with. */
  readonly imei?: string;
  /** LwM2M devices: observe every registered object instance (default false). */
  readonly autoSub?: boolean;
  /** LwM2M devices: the bootstrap settings of their record. */
  readonly lwm2mBootstrap?: Lwm2mBootstrapSettings;
  /** LoRa devices: found by `lora.devEui` or `lora.session.devAddr` (any case); answered with the session. */
  readonly lora?: LoraDeviceInfo;
  /** A Modbus slave's gateway (its deviceID) and unit id: modbus credentials of that gateway and index admit it. */
  readonly gateway?: string;
  readonly modBusIndex?: number;
}

/** An uplink as the fake received it, with the seq it was given. */
export interface RecordedUplink extends Uplink {
  readonly seq: number;
}

/** A session event the adapter reported. */
export type FakeSessionEvent =
  | { readonly type: "opened"; readonly session: DeviceSession; readonly info: SessionInfo }
  | { readonly type: "closed"; readonly session: DeviceSession; readonly reason: string }
  | { readonly type: "state"; readonly session: DeviceSession; readonly sleeping: boolean }
  | { readonly type: "mqttSession"; readonly session: DeviceSession; readonly report: MqttSessionReport };
