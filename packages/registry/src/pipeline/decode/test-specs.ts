import type { PointSpec, StreamSpec } from "./types.js";

/** A data point spec for tests: id, member name, type code and optional binarySize. */
export function pointSpec(id: number, dataPointId: string, pointDataType: number, binarySize?: number): PointSpec {
  return { id, dataPointId, pointDataType, binarySize: binarySize ?? null, enum: null };
}

/** A stream spec for tests: a JSON device report on `data` unless overridden. */
export function streamSpec(points: PointSpec[], over: Partial<StreamSpec> = {}): StreamSpec {
  return { id: 1, streamType: 1, streamDataType: 1, topic: "data", points, ...over };
}

/** The UTF-8 bytes of a value's JSON text, or of a raw string. */
export function jsonBytes(doc: unknown): Uint8Array {
  return new TextEncoder().encode(typeof doc === "string" ? doc : JSON.stringify(doc));
}

/** Bytes from a hex dump; spaces are ignored. */
export function hexBytes(dump: string): Uint8Array {
  return Uint8Array.from(Buffer.from(dump.replace(/\s+/g, ""), "hex"));
}
