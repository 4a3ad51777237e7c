/**
 * LwM2M codecs: TLV, SenML JSON/CBOR, OMA JSON, plain text, CBOR and link-format payloads (as `decodeContent` and
 * the format decoders read them), Register/Update requests and object paths. Valid payloads are encoded by the
 * codecs' own encoders from generated values, then mutated. Every decoder promises a result, never a throw.
 */
import fc from "fast-check";
import { decodeContent, encodeWrite, type WriteValue } from "../../../packages/adapters/lwm2m/src/codec/content.js";
import { CONTENT_FORMAT } from "../../../packages/adapters/lwm2m/src/codec/content-format.js";
import { parseLinkFormat, parseRegisteredObjects } from "../../../packages/adapters/lwm2m/src/codec/link-format.js";
import { decodeLwm2mJson } from "../../../packages/adapters/lwm2m/src/codec/lwm2m-json.js";
import { parseObjectPath } from "../../../packages/adapters/lwm2m/src/codec/object-path.js";
import { parseRegistrationRequest } from "../../../packages/adapters/lwm2m/src/codec/registration.js";
import { decodeCbor, decodeSenmlCbor, decodeSenmlJson } from "../../../packages/adapters/lwm2m/src/codec/senml.js";
import { decodeTlv } from "../../../packages/adapters/lwm2m/src/codec/tlv.js";
import { readTlvValue } from "../../../packages/adapters/lwm2m/src/codec/tlv-value.js";
import type { TypedValue } from "../../../packages/adapters/lwm2m/src/codec/typed-value.js";
import { expectResult, mutatedBytes, mutatedText, type FuzzTarget } from "../harness.js";

const FORMATS = [
  CONTENT_FORMAT.tlv,
  CONTENT_FORMAT.senmlJson,
  CONTENT_FORMAT.senmlCbor,
  CONTENT_FORMAT.lwm2mJson,
  CONTENT_FORMAT.text,
  CONTENT_FORMAT.opaque,
  CONTENT_FORMAT.cbor,
  CONTENT_FORMAT.linkFormat,
] as const;
const TYPES = ["string", "integer", "unsignedInteger", "float", "boolean", "opaque", "time", "objlnk"] as const;

const typedValue: fc.Arbitrary<TypedValue> = fc.oneof(
  fc.string().map((value) => ({ type: "string" as const, value })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value) => ({ type: "integer" as const, value })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => ({ type: "float" as const, value })),
  fc.boolean().map((value) => ({ type: "boolean" as const, value })),
  fc.uint8Array({ maxLength: 24 }).map((value) => ({ type: "opaque" as const, value })),
);

/** Values under /3303/0 (temperature) or resource instances of /3/0/7, as a write or a read answer carries them. */
const writeValues: fc.Arbitrary<{ basePath: string; values: WriteValue[] }> = fc.oneof(
  fc
    .uniqueArray(fc.record({ r: fc.constantFrom(5700, 5701, 5601, 5602, 5750), value: typedValue }), {
      minLength: 1,
      maxLength: 4,
      selector: (v) => v.r,
    })
    .map((vs) => ({ basePath: "/3303/0", values: vs.map((v) => ({ path: `/3303/0/${v.r}`, value: v.value })) })),
  typedValue.map((value) => ({ basePath: "/3303/0/5700", values: [{ path: "/3303/0/5700", value }] })),
);

/** A payload of `format` encoded from valid values (or a small valid fallback when the encoder refuses them). */
const validPayload = (format: number) =>
  writeValues.map(({ basePath, values }) => {
    const encoded = encodeWrite(format, basePath, values);
    if (encoded.ok) return { basePath, bytes: encoded.value };
    return { basePath, bytes: new TextEncoder().encode(format === 40 ? "</3303/0/5700>;pmin=10" : "21.5") };
  });

const registerQuery = fc.record({
  ep: fc.oneof(fc.constant("urn:imei:123456789012345"), fc.string({ maxLength: 40 })),
  lt: fc.oneof(fc.constant("86400"), fc.string({ maxLength: 12 })),
  lwm2m: fc.constantFrom("1.0", "1.1", "2.0", ""),
  b: fc.constantFrom("U", "UQ", "S", "X", ""),
});

type Case =
  | { kind: "content"; format: number; basePath: string; bytes: Uint8Array }
  | { kind: "tlv-value"; type: (typeof TYPES)[number]; bytes: Uint8Array }
  | { kind: "register"; method: string; path: readonly string[]; query: string[]; payload: string }
  | { kind: "path"; text: string };

const content: fc.Arbitrary<Case> = fc
  .constantFrom(...FORMATS)
  .chain((format) => fc.tuple(fc.constant(format), validPayload(format)))
  .chain(([format, valid]) =>
    mutatedBytes(fc.constant(valid.bytes)).map((bytes) => ({
      kind: "content" as const,
      format,
      basePath: valid.basePath,
      bytes,
    })),
  );

const registration: fc.Arbitrary<Case> = fc
  .tuple(
    fc.constantFrom("POST", "DELETE", "PUT"),
    fc.oneof(fc.constant(["rd"]), fc.constant(["rd", "a1b2"]), fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 })),
    registerQuery,
    fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    mutatedText(fc.constant("</1/0>,</3/0>,</3303/0>;ver=1.1,</5/0>")),
  )
  .map(([method, path, q, extra, payload]) => ({
    kind: "register" as const,
    method,
    path,
    query: [`ep=${q.ep}`, `lt=${q.lt}`, `lwm2m=${q.lwm2m}`, `b=${q.b}`, ...extra],
    payload,
  }));

const cases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 6, arbitrary: content },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("tlv-value" as const),
      type: fc.constantFrom(...TYPES),
      bytes: fc.uint8Array({ maxLength: 12 }),
    }),
  },
  { weight: 2, arbitrary: registration },
  {
    weight: 1,
    arbitrary: mutatedText(fc.constantFrom("/3/0/7/1", "/3303/0", "/1")).map((text) => ({
      kind: "path" as const,
      text,
    })),
  },
);

function run(c: Case): void {
  switch (c.kind) {
    case "content":
      expectResult(`decodeContent(${c.format})`, () => decodeContent(c.format, c.bytes, c.basePath));
      expectResult("decodeTlv", () => decodeTlv(c.bytes));
      expectResult("decodeSenmlJson", () => decodeSenmlJson(c.bytes));
      expectResult("decodeSenmlCbor", () => decodeSenmlCbor(c.bytes));
      expectResult("decodeCbor", () => decodeCbor(c.bytes));
      expectResult("decodeLwm2mJson", () => decodeLwm2mJson(c.bytes, c.basePath));
      expectResult("parseLinkFormat", () => parseLinkFormat(c.bytes));
      expectResult("parseRegisteredObjects", () => parseRegisteredObjects(c.bytes));
      return;
    case "tlv-value":
      expectResult(`readTlvValue(${c.type})`, () => readTlvValue(c.bytes, c.type));
      return;
    case "register":
      expectResult("parseRegistrationRequest", () =>
        parseRegistrationRequest({ method: c.method, path: c.path, query: c.query, payload: c.payload }),
      );
      return;
    case "path":
      expectResult("parseObjectPath", () => parseObjectPath(c.text));
  }
}

/** The LwM2M codec target: pure decoders, no session. */
export const lwm2mCodecs: FuzzTarget<Case> = {
  name: "lwm2m-codecs",
  description: "LwM2M TLV, SenML JSON/CBOR, OMA JSON, text, CBOR, link format and registrations refuse, never throw",
  start: async () => ({ arbitrary: cases, run, stop: async () => {} }),
};
