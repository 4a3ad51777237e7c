/**
 * Plain inputs and outputs of the pure rule, alert and metric logic of the
 * data pipeline. Nothing here touches storage: the caller loads these shapes,
 * runs the functions and writes what they answer.
 */

/** One decoded value of a data point in an uplink: `number` for numeric types, `text` for the others. */
export interface DecodedValue {
  dataPointIntId: number;
  /** The point's `dataPointID` (the member name in JSON streams). */
  dataPointId: string;
  number: number | null;
  text: string | null;
}

/** The rule-bearing fields of a data point, as stored. */
export interface PointRule {
  /** The data point's integer id. */
  id: number;
  dataPointId: string;
  dataPointName: string;
  pointDataType: number;
  /** Inclusive bounds of numeric points; null means no bound. */
  upperLimit: number | null;
  lowerLimit: number | null;
  /** The value a fault point (type 4) reports when the device is faulty. */
  faultValue: string | null;
  /** 1: a fault value drops the values of its message (the event stays). */
  isDiscard: number | null;
  /** The allowed values as stored: JSON text of an array (see enum-members.ts), or null. */
  enum: string | null;
  unitSymbol: string | null;
}

/** Which rule of a data point a value breaks. */
export type BreachRule = "upperLimit" | "lowerLimit" | "fault" | "enum";

/** `alertSeverity`: 1 urgent, 2 major, 3 minor, 4 warning. */
export type Severity = 1 | 2 | 3 | 4;

/** One broken rule: the rule's limit (a bound, the fault value, the enum's members) and the value measured. */
export interface Breach {
  rule: BreachRule;
  limit: number | string | string[];
  measured: number | string;
  severity: Severity;
}

/** A value of a point with the rules it breaks (empty when within every rule). */
export interface CheckedValue {
  point: PointRule;
  value: DecodedValue;
  breaches: Breach[];
}

/** An alert still open (no endTime) of a device, identified by its point and rule. */
export interface OpenAlert {
  id: number;
  deviceIntId: number;
  dataPointIntId: number;
  rule: BreachRule;
}

/** `alertDetail` of a rule alert (stored as JSON). */
interface AlertDetail {
  dataPointID: string;
  rule: BreachRule;
  measured: number | string;
  limit: number | string | string[];
}

/**
 * An alert to insert. `endTime` is null unless a later value of the same
 * message already brought the point back within the rule.
 */
export interface NewAlert {
  deviceIntId: number;
  dataPointIntId: number;
  rule: BreachRule;
  alertName: string;
  alertContent: string;
  alertDetail: AlertDetail;
  alertSeverity: Severity;
  /** 1, plus one per further breach of the same rule in the same message. */
  alertTimes: number;
  startTime: number;
  endTime: number | null;
}

/** What one message does to a device's alerts. */
export interface AlertPlan {
  open: NewAlert[];
  /** Add `count` to the alert's alertTimes (one per breaching value; usually 1). */
  repeat: { alertId: number; count: number }[];
  close: { alertId: number; endTime: number }[];
}

/** A formula metric (metricType 1) of a product. */
export interface FormulaMetric {
  id: number;
  dataPointIntId: number;
  expressions: string;
}

/** A metric's value computed from one message. */
export interface MetricValue {
  metricIntId: number;
  value: number;
}

/** A sample of a series: epoch milliseconds and a value. */
export interface TimedValue {
  time: number;
  value: number;
}

/** Bucket width of an aggregate metric (`time_unit`), in UTC. */
export type BucketUnit = "minute" | "hour" | "day" | "week" | "month";

/** How an aggregate metric combines a bucket's values. */
export type AggregateKind = "max" | "min" | "average" | "accumulated";
