/**
 * MQTT 5.0 properties for the MQTT 5 fuzz target: generated values of every property (MQTT 5.0 §2.2.2.2), as
 * mqtt-packet names them, and a raw PUBLISH encoder for what mqtt-packet will not write: a property given twice, a
 * properties length that is not a well-formed variable byte integer (§1.5.5).
 */
import fc from "fast-check";

/** How a property's value is written (§1.5): `flag` is a byte mqtt-packet reads as a boolean. */
type ValueType = "flag" | "byte" | "u16" | "u32" | "vbi" | "utf8" | "binary" | "pairs";

/** Every MQTT 5.0 property: its identifier and value type, by mqtt-packet's name. */
const PROPERTIES = {
  payloadFormatIndicator: [0x01, "flag"],
  messageExpiryInterval: [0x02, "u32"],
  contentType: [0x03, "utf8"],
  responseTopic: [0x08, "utf8"],
  correlationData: [0x09, "binary"],
  subscriptionIdentifier: [0x0b, "vbi"],
  sessionExpiryInterval: [0x11, "u32"],
  assignedClientIdentifier: [0x12, "utf8"],
  serverKeepAlive: [0x13, "u16"],
  authenticationMethod: [0x15, "utf8"],
  authenticationData: [0x16, "binary"],
  requestProblemInformation: [0x17, "flag"],
  willDelayInterval: [0x18, "u32"],
  requestResponseInformation: [0x19, "flag"],
  responseInformation: [0x1a, "utf8"],
  serverReference: [0x1c, "utf8"],
  reasonString: [0x1f, "utf8"],
  receiveMaximum: [0x21, "u16"],
  topicAliasMaximum: [0x22, "u16"],
  topicAlias: [0x23, "u16"],
  maximumQoS: [0x24, "byte"],
  retainAvailable: [0x25, "flag"],
  userProperties: [0x26, "pairs"],
  maximumPacketSize: [0x27, "u32"],
  wildcardSubscriptionAvailable: [0x28, "flag"],
  subscriptionIdentifiersAvailable: [0x29, "flag"],
  sharedSubscriptionAvailable: [0x2a, "flag"],
} as const satisfies Record<string, readonly [number, ValueType]>;

/** A property's name as mqtt-packet spells it. */
export type PropertyName = keyof typeof PROPERTIES;

/** Properties as mqtt-packet takes them (user properties as an object of strings). */
export type Properties = Partial<Record<PropertyName, unknown>>;

const ALL_NAMES = Object.keys(PROPERTIES) as PropertyName[];

/** Largest topic alias the adapter accepts (its CONNACK's Topic Alias Maximum). */
const TOPIC_ALIAS_MAXIMUM = 32;

/** Values of each type, edge values often: 0 (a protocol error for some), the maximum, around the alias maximum. */
const VALUES: Record<ValueType, fc.Arbitrary<unknown>> = {
  flag: fc.boolean(),
  byte: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 0xff })),
  u16: fc.oneof(fc.constantFrom(0, 1, TOPIC_ALIAS_MAXIMUM, TOPIC_ALIAS_MAXIMUM + 1, 0xffff), fc.nat(0xffff)),
  u32: fc.oneof(fc.constantFrom(0, 1, 60, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff })),
  vbi: fc.oneof(fc.constantFrom(0, 1, 0x0fffffff), fc.nat(0x0fffffff)),
  utf8: fc.string({ maxLength: 12 }),
  binary: fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
  pairs: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 8 }), { minKeys: 1, maxKeys: 3 }),
};

/** `arbitrary` one time in `every`, else undefined. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** Any subset of `names` with generated values. */
export function propertiesOf(names: readonly PropertyName[]): fc.Arbitrary<Properties> {
  const fields = Object.fromEntries(names.map((n) => [n, VALUES[PROPERTIES[n][1]]]));
  return fc.record(fields, { requiredKeys: [] });
}

/**
 * The properties a packet type may carry, one time in five with one it may not (a Malformed Packet, or a Protocol
 * Error, for the receiver: MQTT 5.0 §2.2.2.2).
 */
export function propertiesFor(valid: readonly PropertyName[]): fc.Arbitrary<Properties> {
  const wrong = ALL_NAMES.filter((n) => !valid.includes(n));
  return fc
    .tuple(propertiesOf(valid), sometimes(fc.constantFrom(...wrong), 5))
    .chain(([props, extra]) =>
      extra === undefined ? fc.constant(props) : VALUES[PROPERTIES[extra][1]].map((v) => ({ ...props, [extra]: v })),
    );
}

/** `n` as an MQTT variable byte integer, in as few bytes as it takes (§1.5.5). */
export function vbi(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

/** A UTF-8 string or binary data with its two-byte length (§1.5.4, §1.5.6). */
function prefixed(data: string | Uint8Array): Buffer {
  const b = typeof data === "string" ? Buffer.from(data) : Buffer.from(data);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(b.length & 0xffff);
  return Buffer.concat([length, b]);
}

/** One property's bytes; a user properties object gives one pair per key. */
export function encodeProperty(name: PropertyName, value: unknown): Buffer {
  const [id, type] = PROPERTIES[name];
  const head = Buffer.from([id]);
  const number = (bytes: number) => {
    const b = Buffer.alloc(bytes);
    b.writeUIntBE(Number(value) % 2 ** (8 * bytes), 0, bytes);
    return Buffer.concat([head, b]);
  };
  switch (type) {
    case "flag":
      return Buffer.from([id, value ? 1 : 0]);
    case "byte":
      return number(1);
    case "u16":
      return number(2);
    case "u32":
      return number(4);
    case "vbi":
      return Buffer.concat([head, vbi(Number(value))]);
    case "utf8":
    case "binary":
      return Buffer.concat([head, prefixed(value as string | Uint8Array)]);
    case "pairs":
      return Buffer.concat(
        Object.entries(value as Record<string, string>).map(([k, v]) =>
          Buffer.concat([head, prefixed(k), prefixed(v)]),
        ),
      );
  }
}

/**
 * How a raw packet writes its properties length: as it should, as a five-byte variable byte integer (longer than
 * §1.5.5 allows), with a needless continuation byte (not the minimum number of bytes), or off by a few bytes.
 */
export type LengthEncoding = "minimal" | "five-bytes" | "padded" | "short" | "long";

const lengthEncoding: fc.Arbitrary<LengthEncoding> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("minimal" as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("five-bytes" as const, "padded" as const, "short" as const, "long" as const),
  },
);

function propertiesLength(length: number, how: LengthEncoding): Buffer {
  switch (how) {
    case "minimal":
      return vbi(length);
    case "five-bytes":
      return Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7f]);
    case "padded":
      return Buffer.concat([Buffer.from([(length % 128) | 0x80]), vbi(Math.floor(length / 128))]);
    case "short":
      return vbi(Math.max(0, length - 2));
    case "long":
      return vbi(length + 3);
  }
}

/** A PUBLISH as the raw encoder writes it. */
export interface RawPublish {
  readonly topic: string;
  readonly qos: number;
  readonly dup: boolean;
  readonly retain: boolean;
  readonly messageId: number;
  readonly properties: Properties;
  /** A property written twice (its name), or none. */
  readonly twice: PropertyName | undefined;
  readonly lengthEncoding: LengthEncoding;
  readonly payload: Uint8Array;
}

/** An MQTT 5.0 PUBLISH's bytes (§3.3), however wrong its properties are. */
export function encodePublish(p: RawPublish): Buffer {
  const entries = Object.entries(p.properties).filter(([, v]) => v !== undefined) as [PropertyName, unknown][];
  const props = Buffer.concat(entries.map(([n, v]) => encodeProperty(n, v)));
  const again = p.twice && p.properties[p.twice] !== undefined ? encodeProperty(p.twice, p.properties[p.twice]) : null;
  const allProps = again ? Buffer.concat([props, again]) : props;
  const id = Buffer.alloc(2);
  id.writeUInt16BE(p.messageId);
  const variable = Buffer.concat([
    prefixed(p.topic),
    p.qos > 0 ? id : Buffer.alloc(0),
    propertiesLength(allProps.length, p.lengthEncoding),
    allProps,
  ]);
  const first = 0x30 | (p.dup ? 0x08 : 0) | ((p.qos & 3) << 1) | (p.retain ? 1 : 0);
  return Buffer.concat([Buffer.from([first]), vbi(variable.length + p.payload.length), variable, p.payload]);
}

/** The properties a client's PUBLISH may carry (§3.3.2.3), the Topic Alias apart. */
export const PUBLISH_PROPERTIES: readonly PropertyName[] = [
  "payloadFormatIndicator",
  "messageExpiryInterval",
  "contentType",
  "responseTopic",
  "correlationData",
  "userProperties",
];

/** A Topic Alias: mostly one the adapter accepts (1–32), sometimes 0 or one over its maximum (§3.3.2.3.4). */
const topicAlias = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: TOPIC_ALIAS_MAXIMUM }) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom(0, TOPIC_ALIAS_MAXIMUM + 1, 0xffff), fc.nat(0xffff)) },
);

/**
 * MQTT 5.0 PUBLISHes of a device: valid properties, one not valid in PUBLISH, one given twice, a topic alias (with
 * the topic or, to use it, without), over the maximum; a properties length sometimes malformed.
 */
export function publishV5(
  topic: fc.Arbitrary<string>,
  payload: fc.Arbitrary<Uint8Array>,
  messageId: fc.Arbitrary<number>,
): fc.Arbitrary<Buffer> {
  const properties = fc
    .tuple(propertiesFor(PUBLISH_PROPERTIES), sometimes(topicAlias, 2))
    .map(([props, alias]) => (alias === undefined ? props : { ...props, topicAlias: alias }));
  return fc
    .record({
      topic: fc.oneof(topic, fc.constant("")),
      qos: fc.constantFrom(0, 1, 2),
      dup: fc.boolean(),
      retain: fc.boolean(),
      messageId,
      properties,
      twice: sometimes(fc.constantFrom<PropertyName>(...PUBLISH_PROPERTIES, "topicAlias"), 6),
      lengthEncoding,
      payload,
    })
    .map(encodePublish);
}
