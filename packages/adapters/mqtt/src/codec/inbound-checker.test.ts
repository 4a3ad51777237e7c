import mqttPacket, { type Packet } from "mqtt-packet";
import { describe, expect, it } from "vitest";
import { InboundChecker, publishProblem } from "./inbound-checker.js";

const encode = (p: Packet, protocolVersion: 4 | 5) => mqttPacket.generate(p, { protocolVersion });
const connect = (protocolVersion: 4 | 5) =>
  encode(
    { cmd: "connect", protocolId: "MQTT", protocolVersion, clientId: "c", clean: true, keepalive: 30 },
    protocolVersion,
  );
const publish = (topic: string, protocolVersion: 4 | 5, properties?: object) =>
  encode(
    { cmd: "publish", topic, payload: Buffer.from("x"), qos: 1, messageId: 1, retain: false, dup: false, properties },
    protocolVersion,
  );
/** A QoS 0 PUBLISH body: topic, then the property bytes as given, then a payload. */
const body = (topic: string, properties: number[]) =>
  Buffer.from([0, topic.length, ...Buffer.from(topic), properties.length, ...properties, 0x78]);

/** Feeds `bytes` to a new checker in pieces of `step` bytes; answers the bytes passed on and its problem. */
function feed(bytes: Buffer, step: number) {
  const checker = new InboundChecker();
  const passed: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += step) passed.push(Buffer.from(checker.pass(bytes.subarray(at, at + step))));
  return { passed: Buffer.concat(passed), problem: checker.problem };
}

describe("publishProblem", () => {
  it("accepts the properties a client's PUBLISH may carry, a user property repeated", () => {
    const props = [0x01, 1, 0x02, 0, 0, 0, 9, 0x03, 0, 1, 0x61, 0x26, 0, 1, 0x6b, 0, 1, 0x76, 0x26, 0, 1, 0x6b, 0, 0];
    expect(publishProblem(0, body("t", props), true)).toBeUndefined();
  });

  it("finds a repeated single property, a subscription identifier, a foreign property and QoS 3", () => {
    expect(publishProblem(0, body("t", [0x23, 0, 1, 0x23, 0, 1]), true)).toMatchObject({ code: 0x82 });
    expect(publishProblem(0, body("t", [0x0b, 1]), true)).toMatchObject({ code: 0x82 });
    expect(publishProblem(0, body("t", [0x11, 0, 0, 0, 1]), true)).toMatchObject({ code: 0x81 });
    expect(publishProblem(6, body("t", []), true)).toMatchObject({ code: 0x81 });
  });

  it("finds a wildcard topic, an empty topic without alias, and properties running past their length", () => {
    expect(publishProblem(0, body("a/#", []), true)).toMatchObject({ code: 0x90 });
    expect(publishProblem(0, body("", []), true)).toMatchObject({ code: 0x82 });
    expect(publishProblem(0, body("", [0x23, 0, 1]), true)).toBeUndefined();
    expect(publishProblem(0, body("t", [0x03, 0, 9, 0x61]), true)).toMatchObject({ code: 0x81 });
  });

  it("asks for more bytes while the topic and properties are incomplete, unless the packet ended", () => {
    const whole = body("topic", [0x23, 0, 1]);
    expect(publishProblem(0, whole.subarray(0, 9), false)).toBe("short");
    expect(publishProblem(0, whole.subarray(0, 9), true)).toMatchObject({ code: 0x81 });
  });
});

describe("InboundChecker", () => {
  const good = Buffer.concat([connect(5), publish("a", 5, { contentType: "x" }), publish("b", 5)]);
  const disconnect = encode({ cmd: "disconnect", reasonCode: 0 }, 5);
  const bad = Buffer.from([0x30, 10, ...body("t", [0x23, 0, 1, 0x23, 0, 1]).subarray(0, 10)]);

  for (const step of [1, 3, 7, 1000]) {
    it(`passes every byte of good packets fed ${step} at a time`, () => {
      expect(feed(good, step)).toEqual({ passed: good, problem: undefined });
    });

    it(`passes nothing after a DISCONNECT fed ${step} at a time`, () => {
      expect(feed(Buffer.concat([good, disconnect, publish("c", 5)]), step)).toEqual({
        passed: Buffer.concat([good, disconnect]),
        problem: undefined,
      });
    });

    it(`stops before a refused MQTT 5.0 PUBLISH fed ${step} at a time`, () => {
      const { passed, problem } = feed(Buffer.concat([good, bad, publish("c", 5)]), step);
      expect(problem).toMatchObject({ code: 0x82 });
      // Fed in pieces, the start of the refused packet may have passed already; never its end nor what follows.
      expect(good.equals(passed.subarray(0, good.length))).toBe(true);
      expect(passed.length).toBeLessThan(good.length + bad.length);
    });
  }

  it("checks no PUBLISH properties on an MQTT 3.1.1 connection, and still cuts after its DISCONNECT", () => {
    const v4 = Buffer.concat([connect(4), publish("a", 4)]);
    const disconnect4 = encode({ cmd: "disconnect" }, 4);
    expect(feed(Buffer.concat([v4, disconnect4, publish("b", 4)]), 1000)).toEqual({
      passed: Buffer.concat([v4, disconnect4]),
      problem: undefined,
    });
  });

  it("refuses the QoS 1/2 PUBLISH one past its Receive Maximum until an earlier one is answered", () => {
    const checker = new InboundChecker(2);
    const p = (id: number) =>
      encode(
        { cmd: "publish", topic: "t", payload: Buffer.from("x"), qos: 1, messageId: id, retain: false, dup: false },
        5,
      );
    expect(checker.pass(Buffer.concat([connect(5), p(1), p(2), p(1)])).length).toBeGreaterThan(0);
    expect(checker.countsAnswers).toBe(true);
    checker.answered(1);
    const next = Buffer.concat([p(3), p(4)]);
    expect(checker.pass(next)).toEqual(p(3));
    expect(checker.problem).toMatchObject({ code: 0x93 });
  });

  describe("an MQTT 5.0 CONNECT's will properties", () => {
    const withWill = (properties: object, protocolVersion: 4 | 5 = 5) =>
      encode(
        {
          cmd: "connect",
          protocolId: "MQTT",
          protocolVersion,
          clientId: "c",
          clean: true,
          keepalive: 30,
          properties: { sessionExpiryInterval: 60 },
          will: { topic: "w", payload: Buffer.from("bye"), qos: 0, retain: false, properties },
        },
        protocolVersion,
      );

    for (const step of [1, 5, 1000]) {
      it(`passes a will with the properties a will may carry, fed ${step} at a time`, () => {
        const good = Buffer.concat([
          withWill({ willDelayInterval: 5, contentType: "t", userProperties: { a: ["1", "2"] } }),
          publish("a", 5),
        ]);
        expect(feed(good, step)).toEqual({ passed: good, problem: undefined });
      });

      it(`refuses a will carrying a Topic Alias in the CONNECT itself, passing none of it, fed ${step} at a time`, () => {
        const { passed, problem } = feed(Buffer.concat([withWill({ topicAlias: 1 }), publish("a", 5)]), step);
        expect(problem).toEqual({ code: 0x81, reason: "property 0x23 is not valid in will", inConnect: true });
        expect(passed.length).toBeLessThan(withWill({ topicAlias: 1 }).length);
      });
    }

    it("refuses a single will property given twice with 0x82", () => {
      const connect = withWill({ contentType: "a" });
      // The will's Content Type, written again in place of the connect's Session Expiry Interval would not do:
      // build the will properties by hand instead (mqtt-packet writes a property once).
      const at = connect.indexOf(Buffer.from([0x03, 0x00, 0x01, 0x61]));
      const props = [0x03, 0x00, 0x01, 0x61, 0x03, 0x00, 0x01, 0x61];
      const body = Buffer.concat([
        connect.subarray(2, at - 1),
        Buffer.from([props.length, ...props]),
        connect.subarray(at + 4),
      ]);
      const twice = Buffer.concat([Buffer.from([0x10, body.length]), body]);
      expect(feed(twice, 1000).problem).toMatchObject({ code: 0x82, inConnect: true });
    });

    it("checks no will properties on an MQTT 3.1.1 connection", () => {
      const v4 = withWill({}, 4);
      expect(feed(v4, 1000)).toEqual({ passed: v4, problem: undefined });
    });
  });
});
