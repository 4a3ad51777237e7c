/**
 * The plain inputs and outputs of uplink decoding. They hold no database rows
 * so that every adapter (MQTT, HTTP, CoAP, and later Modbus, LwM2M, LoRaWAN)
 * can feed the same pure decoders.
 */

/** A product's data point as decoding needs it. */
export interface PointSpec {
  /** dataPointIntID: the data point row's id. */
  id: number;
  /** dataPointID: the JSON member name of the point. */
  dataPointId: string;
  /** The spec's `pointDataType` code, see {@link POINT_TYPE}. */
  pointDataType: number;
  /** Length in bytes of fixed-length and integer types; for Modbus booleans (23) a bit position, unused here. */
  binarySize: number | null;
  /** The enumerated values as JSON text; checked by the rules, not by decoding. */
  enum: string | null;
}

/** A product's data stream as decoding needs it. */
export interface StreamSpec {
  id: number;
  /** 1 device report, 2 command, 3 gateway report, 4 gateway command, see {@link STREAM_TYPE}. */
  streamType: number;
  /** 1 JSON, 2 binary, see {@link STREAM_DATA_TYPE}. */
  streamDataType: number;
  /** MQTT topic filter relative to the device; `+` and `#` allowed. */
  topic: string;
  /** The stream's data points, in stream position order (the binary layout's order). */
  readonly points: readonly PointSpec[];
}

/** `pointDataType` codes (spec: Data point). 21–25 are Modbus products' types. */
export const POINT_TYPE = {
  numeric: 1,
  string: 3,
  fault: 4,
  boolean: 5,
  geolocation: 6,
  fixedString: 11,
  variableString: 12,
  fixedBinary: 13,
  variableBinary: 14,
  signedInteger: 15,
  unsignedInteger: 16,
  float: 17,
  double: 18,
  bit: 19,
  modbusSignedLong: 21,
  modbusUnsignedLong: 22,
  modbusBoolean: 23,
  modbusTime: 24,
  modbusFloat: 25,
} as const;

/** `streamType` codes (spec: Data stream). */
export const STREAM_TYPE = { deviceReport: 1, deviceCommand: 2, gatewayReport: 3, gatewayCommand: 4 } as const;

/**
 * `streamDataType` codes (spec: Data stream): 1 JSON, 2 binary. `lwm2m` is never stored: it is the registry's own
 * implicit stream of an LwM2M product (answers and notifications with `data.content` `[{path, value}]`).
 */
export const STREAM_DATA_TYPE = { json: 1, binary: 2, lwm2m: 101 } as const;

/** Largest payload decoded, bytes (4 MiB); a larger one is refused whole. */
export const MAX_DECODE_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** A longitude and latitude in degrees (WGS 84). */
export interface Location {
  longitude: number;
  latitude: number;
}

/**
 * One accepted value of a data point. Exactly one of `number` and `text` is
 * set: numbers, booleans (1/0), bits, fault codes sent as numbers and times
 * (epoch ms) are numbers; strings and binaries (lower-case hex) are text; a
 * geolocation is the text "longitude,latitude" with `location` set.
 */
export interface DecodedValue {
  dataPointIntId: number;
  dataPointId: string;
  number: number | null;
  text: string | null;
  location?: Location;
}

/** A value refused for its point (wrong type, out of range, truncated); the message's other values are kept. */
export interface RefusedValue {
  dataPointIntId: number;
  dataPointId: string;
  reason: string;
}

/** What one stream yields from a payload. */
export interface Decoded {
  /** The device's own timestamp of the values, epoch ms; absent when it sent none (the caller uses receive time). */
  deviceTime?: number;
  values: DecodedValue[];
  refused: RefusedValue[];
}

/** A payload that cannot be read at all (too large, not a UTF-8 JSON object, unknown stream data type). */
export interface DecodeFailure {
  error: string;
}

/** The result of decoding one payload with one stream. */
export type DecodeResult = Decoded | DecodeFailure;
