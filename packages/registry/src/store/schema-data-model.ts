import type { Generated } from "kysely";

/** Typed fields of a product (spec "Data point"); enum is JSON text. */
export interface DataPointsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  dataPointId: string;
  dataPointName: string;
  pointDataType: number;
  /** 1 report only, 2 command only, 3 both. */
  dataTransType: number;
  unitName: string | null;
  unitSymbol: string | null;
  upperLimit: number | null;
  lowerLimit: number | null;
  dataStep: number | null;
  binarySize: number | null;
  faultValue: string | null;
  isDiscard: number | null;
  isLocationType: number | null;
  locationType: number | null;
  enum: string | null;
  registerAddr: string | null;
  detail: string | null;
  createAt: number;
  updateAt: number | null;
}

/** Topics that carry data points; topic unique within a product. */
export interface DataStreamsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  streamName: string;
  /** 1 device report, 2 device command, 3 gateway report, 4 gateway command. */
  streamType: number;
  /** 1 JSON, 2 binary. */
  streamDataType: number;
  topic: string;
  detail: string | null;
  createAt: number;
  updateAt: number | null;
}

/** The data points of a stream, in order. */
export interface DataStreamPointsTable {
  dataStreamIntId: number;
  dataPointIntId: number;
  position: number;
}

export interface MetricsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  metricName: string;
  /** 1 formula, 2 aggregate. */
  metricType: number;
  dataPointIntId: number;
  dataStreamIntId: number | null;
  /** 1 maximum, 2 minimum, 3 average, 4 accumulated. */
  aggregateType: number | null;
  aggregateData: string | null;
  expressions: string | null;
  expressionsLabel: string | null;
  /** 1 line, 2 bar. */
  chartType: number | null;
  isShow: number;
  productItemIntId: number;
  remark: string | null;
  createAt: number;
  updateAt: number | null;
}

export interface ProductResourcesTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  codeValue: string;
  dataPointIntId: number;
  itemName: string | null;
  productItemIntId: number;
  createAt: number;
  updateAt: number | null;
}

/** enum, places, itemOperations and defaultValues are JSON text. */
export interface AppTemplatesTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  productIntId: number;
  templateName: string;
  templateType: number;
  productItemIntId: number;
  dataPointIntId: number | null;
  dataStreamIntId: number | null;
  dataTransType: number | null;
  topic: string | null;
  enum: string | null;
  places: string | null;
  instanceId: string | null;
  itemId: string | null;
  itemName: string | null;
  itemOperations: string | null;
  objectId: string | null;
  defaultValues: string | null;
  createAt: number;
  updateAt: number | null;
}

/** The latest value of each data point of a device (device consoles read it). */
export interface DevicePointValuesTable {
  deviceIntId: number;
  dataPointIntId: number;
  value: string | null;
  updateAt: number;
}

/** Device certificates issued by the service CA; CN `<tenantID>:<suffix>`. */
export interface CertsTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  name: string;
  enable: number;
  cn: string;
  certPem: string;
  keyPem: string;
  /** SHA-256 of the DER certificate, lower-case hex. */
  fingerprint: string;
  createAt: number;
  updateAt: number | null;
}

/** Publish/subscribe rules; access stored in Form 1 codes (1 pub, 2 sub, 3 both). */
export interface PoliciesTable {
  id: Generated<number>;
  tenantId: string;
  userIntId: number;
  name: string;
  topic: string;
  access: number;
  allow: number;
  description: string | null;
  createAt: number;
  updateAt: number | null;
}

export interface DevicePoliciesTable {
  deviceIntId: number;
  policyIntId: number;
  createAt: number;
}

/** Topics the adapter subscribes a device to on its behalf. */
export interface ProxySubscriptionsTable {
  id: Generated<number>;
  tenantId: string;
  deviceIntId: number;
  topic: string;
  qos: number;
  createAt: number;
  updateAt: number | null;
}

/** alertDetail is JSON text (the measured values). */
export interface HistoryAlertsTable {
  id: Generated<number>;
  tenantId: string;
  deviceIntId: number;
  alertName: string;
  alertContent: string | null;
  alertDetail: string | null;
  alertSeverity: number;
  alertTimes: number;
  startTime: number;
  endTime: number | null;
  createAt: number;
  updateAt: number | null;
  /** The data point whose rule raised it (null for alerts of other origins). */
  dataPointIntId: number | null;
  /** The rule: upperLimit, lowerLimit, fault or enum. */
  rule: string | null;
}

/** One accepted data point value of one uplink (the pipeline's time series). */
export interface PointValuesTable {
  id: Generated<number>;
  tenantId: string;
  deviceIntId: number;
  dataPointIntId: number;
  /** The device event (stored uplink) the value came from. */
  eventId: number;
  /** Epoch ms: the device's timestamp when it sent one, else when the adapter received the uplink. */
  valueTime: number;
  /** Epoch ms when the adapter received the uplink (retention counts from it). */
  receivedAt: number;
  numValue: number | null;
  textValue: string | null;
}

/** One formula metric value computed from one uplink. */
export interface MetricValuesTable {
  id: Generated<number>;
  tenantId: string;
  deviceIntId: number;
  metricIntId: number;
  /** The device event (stored uplink) the value came from. */
  eventId: number;
  valueTime: number;
  value: number;
}
