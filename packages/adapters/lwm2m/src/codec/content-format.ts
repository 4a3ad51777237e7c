/**
 * CoAP Content-Format numbers of LwM2M payloads (OMA-TS-LightweightM2M-V1_0 §6.4, Core V1_1 §7.4; IANA CoAP
 * Content-Formats registry). 1542 and 1543 are the numbers the 1.0 drafts used before IANA assigned 11542/11543;
 * some deployed clients still send them, so the codecs read them as TLV and OMA JSON.
 */
export const CONTENT_FORMAT = {
  /** text/plain;charset=utf-8: one resource value as text. */
  text: 0,
  /** application/link-format: Register payloads and Discover answers. */
  linkFormat: 40,
  /** application/octet-stream: one opaque resource value. */
  opaque: 42,
  /** application/cbor (1.1): one resource value as a CBOR item. */
  cbor: 60,
  /** application/senml+json (1.1). */
  senmlJson: 110,
  /** application/senml+cbor (1.1). */
  senmlCbor: 112,
  /** application/vnd.oma.lwm2m+tlv. */
  tlv: 11542,
  /** application/vnd.oma.lwm2m+json: the OMA JSON of 1.0 (not SenML). */
  lwm2mJson: 11543,
  /** application/vnd.oma.lwm2m+cbor (1.2): nested maps of paths (lwm2m-cbor.ts). */
  lwm2mCbor: 11544,
  /** TLV under its pre-IANA number. */
  tlvLegacy: 1542,
  /** OMA JSON under its pre-IANA number. */
  lwm2mJsonLegacy: 1543,
} as const;

/** A content format number. */
export type ContentFormat = (typeof CONTENT_FORMAT)[keyof typeof CONTENT_FORMAT];

const NAMES: Record<number, string> = {
  0: "text/plain",
  40: "application/link-format",
  42: "application/octet-stream",
  60: "application/cbor",
  110: "application/senml+json",
  112: "application/senml+cbor",
  11542: "application/vnd.oma.lwm2m+tlv",
  11543: "application/vnd.oma.lwm2m+json",
  11544: "application/vnd.oma.lwm2m+cbor",
  1542: "application/vnd.oma.lwm2m+tlv (1542)",
  1543: "application/vnd.oma.lwm2m+json (1543)",
};

/** The media type of a content format, for logs and errors; `content format <n>` for unknown numbers. */
export function contentFormatName(format: number): string {
  return NAMES[format] ?? `content format ${format}`;
}
