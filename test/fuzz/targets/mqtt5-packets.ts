/**
 * MQTT 5.0 packets through the MQTT adapter's handler, as `mqtt-packets` does for 3.1.1: each case is a connection
 * sending CONNECT v5 (known, blocked or unknown device, right or wrong token, CONNECT and will properties, an
 * authentication method) then PUBLISHes with properties (valid, not valid in PUBLISH, given twice, a topic alias over
 * the maximum, a malformed properties length), SUBSCRIBE with subscription options and identifiers, UNSUBSCRIBE, AUTH,
 * acknowledgements and DISCONNECT with reason codes and properties, whose bytes are then often mutated. Nothing may
 * escape the adapter, and an MQTT 5.0 device and a 3.1.1 device of the tenant, each on its own connection, keep
 * getting PUBACKs with their uplinks stored once.
 */
import fc from "fast-check";
import mqttPacket, { type Packet } from "mqtt-packet";
import type { FakeDevice } from "@iot/adapter-core";
import { DEVICES } from "../../../packages/adapters/mqtt/src/test-support.js";
import { mutatedBytes, type FuzzTarget } from "../harness.js";
import { inWrites, mqttAdapterSession } from "../mqtt-session.js";
import { PUBLISH_PROPERTIES, propertiesFor, propertiesOf, publishV5, sometimes } from "../mqtt5-properties.js";

const topic = fc.oneof(
  fc.constantFrom("telemetry", "up/x", "secret/keys", "config/a", "inbox", "$SYS/x", "a/+/b", "#", ""),
  fc.constantFrom("$share/g/telemetry", "$share//x", "$share/g"),
  fc.string({ maxLength: 20 }),
);
const payload = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
const messageId = fc.integer({ min: 1, max: 0xffff });
const fuzzDevices = [DEVICES.a, DEVICES.otherTenantA, DEVICES.blocked, DEVICES.restricted, DEVICES.proxied];
/** The 3.1.1 live device beside the v5 one (DEVICES.b), in the same tenant. */
const LIVE_311: FakeDevice = {
  deviceIntId: 7,
  deviceId: "dev-g",
  username: "user-g",
  token: "token-g",
  tenantId: "t1",
};

/** Mostly a reason code the packet type allows a client (MQTT 5.0 §2.4), sometimes any byte. */
const reasonCode = (allowed: readonly number[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...allowed) }, { weight: 1, arbitrary: fc.nat(0xff) });
const PUBACK_CODES = [0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99];
const PUBREL_CODES = [0x00, 0x92];
const AUTH_CODES = [0x00, 0x18, 0x19];
/** DISCONNECT from a client: normal, with will message (0x04), and the errors a client may give (§3.14.2.1). */
const DISCONNECT_CODES = [0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x90, 0x93, 0x94, 0x95, 0x96, 0x98, 0x99];

const connect: fc.Arbitrary<Packet> = fc
  .record({
    device: fc.constantFrom(...fuzzDevices),
    rightToken: fc.boolean(),
    protocolVersion: fc.constantFrom<5 | 4>(5, 5, 5, 5, 4),
    clean: fc.boolean(),
    keepalive: fc.integer({ min: 0, max: 600 }),
    properties: propertiesFor([
      "sessionExpiryInterval",
      "receiveMaximum",
      "maximumPacketSize",
      "topicAliasMaximum",
      "requestResponseInformation",
      "requestProblemInformation",
      "userProperties",
    ]),
    // Enhanced authentication, which the adapter refuses (CONNACK 0x8C): now and then, or few CONNECTs would pass.
    auth: sometimes(propertiesOf(["authenticationMethod", "authenticationData"]), 8),
    will: fc.option(
      fc.record({
        topic,
        payload,
        qos: fc.constantFrom(0, 1, 2),
        retain: fc.boolean(),
        // A will carries a PUBLISH's properties and its own Will Delay Interval (§3.1.3.2).
        properties: propertiesOf(["willDelayInterval", ...PUBLISH_PROPERTIES]),
      }),
      { freq: 2, nil: undefined },
    ),
  })
  .map(
    (c): Packet =>
      ({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: c.protocolVersion,
        clean: c.clean,
        keepalive: c.keepalive,
        clientId: c.device.deviceId,
        username: c.device.username,
        password: Buffer.from(c.rightToken ? c.device.token : "wrong"),
        properties: { ...c.properties, ...c.auth },
        ...(c.will ? { will: c.will } : {}),
      }) as Packet,
  );

/** An acknowledgement with a reason code and properties (of any message id). */
const ack = fc
  .record({
    cmd: fc.constantFrom("puback" as const, "pubrec" as const, "pubrel" as const, "pubcomp" as const),
    messageId,
    properties: propertiesFor(["reasonString", "userProperties"]),
  })
  .chain((p) =>
    reasonCode(p.cmd === "puback" || p.cmd === "pubrec" ? PUBACK_CODES : PUBREL_CODES).map(
      (code) => ({ ...p, reasonCode: code }) as Packet,
    ),
  );

const afterConnect: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: publishV5(topic, payload, messageId) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        messageId,
        subscriptions: fc.array(
          fc.record({
            topic,
            qos: fc.constantFrom(0, 1, 2),
            nl: fc.boolean(),
            rap: fc.boolean(),
            rh: fc.constantFrom(0, 1, 2),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        properties: propertiesFor(["subscriptionIdentifier", "userProperties"]),
      })
      .map((p) => generate({ cmd: "subscribe", ...p } as Packet)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        messageId,
        unsubscriptions: fc.array(topic, { minLength: 1, maxLength: 3 }),
        properties: propertiesFor(["userProperties"]),
      })
      .map((p) => generate({ cmd: "unsubscribe", ...p } as Packet)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        reasonCode: reasonCode(AUTH_CODES),
        properties: propertiesFor(["authenticationMethod", "authenticationData", "reasonString", "userProperties"]),
      })
      .map((p) => generate({ cmd: "auth", ...p } as Packet)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        reasonCode: reasonCode(DISCONNECT_CODES),
        properties: propertiesFor(["sessionExpiryInterval", "reasonString", "userProperties", "serverReference"]),
      })
      .map((p) => generate({ cmd: "disconnect", ...p } as Packet)),
  },
  { weight: 1, arbitrary: ack.map(generate) },
  { weight: 1, arbitrary: fc.constant(generate({ cmd: "pingreq" })) },
);

/** A packet's MQTT 5.0 bytes; one mqtt-packet will not write is left out: mutations make such ones. */
function generate(p: Packet): Buffer {
  try {
    return mqttPacket.generate(p, { protocolVersion: 5 });
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * The bytes of a connection: CONNECT (mostly) then up to 4 packets. Many v5 faults (a property given twice, an
 * alias over the maximum) only reach the adapter intact, so the packets go unmutated more often than in the 3.1.1
 * target.
 */
const valid = fc
  .tuple(fc.option(connect, { freq: 8, nil: undefined }), fc.array(afterConnect, { maxLength: 4 }))
  .map(([c, rest]) => new Uint8Array(Buffer.concat([...(c ? [generate(c)] : []), ...rest])));
const connection = fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: mutatedBytes(valid) });

/** The MQTT 5.0 target: in-memory connections to one adapter on a fake registry. */
export const mqtt5Packets: FuzzTarget<Uint8Array[]> = {
  name: "mqtt5-packets",
  description:
    "MQTT 5.0 packets, valid and mutated, never crash the adapter; live v5 and 3.1.1 devices keep getting PUBACKs",
  start: () =>
    mqttAdapterSession(
      inWrites(connection),
      [...Object.values(DEVICES), LIVE_311],
      [
        { device: DEVICES.b, protocolVersion: 5 },
        { device: LIVE_311, protocolVersion: 4 },
      ],
    ),
};
