/**
 * CoAP datagrams through the CoAP adapter and its message layer (RFC 7252 messages, 7641 observe, 7959 block-wise)
 * in memory: each case is 1 to 3 datagrams from one of a few peers — requests (GET with or without Observe, POST,
 * PUT, DELETE) on device topics with right or wrong credentials, block options, empty ACK/RST — built with
 * coap-packet and mutated. `handle` promises never to throw; nothing may escape asynchronously either; a device on
 * its own peer keeps getting 2.04 for confirmable publishes that reach the registry.
 */
import fc from "fast-check";
import { createAdapterLogger, FakeRegistryClient } from "@iot/adapter-core";
import { createCoapAdapter } from "@iot/adapter-coap";
import { FakeCoapClient } from "../../../packages/adapters/coap/src/fake-coap-client.js";
import { mutatedBytes, type FuzzTarget } from "../harness.js";

const LIVE = { deviceIntId: 1, deviceId: "live-1", username: "lu", token: "lt" };
const OTHER = { deviceIntId: 2, deviceId: "dev-2", username: "u2", token: "t2" };

const path = fc.constantFrom("/mqtt/telemetry", "/mqtt/inbox", "/mqtt", "/mqtt/a/b/c", "/rd", "/", "/mqtt/secret/x");
const query = fc.constantFrom(
  ["c=dev-2", "u=u2", "p=t2"],
  ["c=dev-2", "u=u2", "p=wrong"],
  ["c=nobody", "u=x", "p=y"],
  [],
  ["c=dev-2"],
);
const block = fc.record({ num: fc.nat(40), more: fc.boolean(), szx: fc.integer({ min: 0, max: 7 }) });

/** A valid datagram: a request of the builder, or an empty ACK / RST / CON ping. */
const datagram = (builder: FakeCoapClient) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record(
          {
            code: fc.constantFrom("0.01", "0.02", "0.03", "0.04", "0.05"),
            path,
            query,
            payload: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('{"temp":21}')),
            observe: fc.constantFrom(0, 1),
            confirmable: fc.boolean(),
            token: fc.string({ maxLength: 8 }),
            messageId: fc.nat(0xffff),
            block1: block,
            block2: block,
            size1: fc.nat(300_000),
            contentFormat: fc.constantFrom(0, 50, 60, 110),
          },
          { requiredKeys: ["code", "path", "query", "payload", "confirmable", "messageId"] },
        )
        .map(({ code, path: p, ...opts }) => builder.build(code, p, opts)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ messageId: fc.nat(0xffff), type: fc.constantFrom(0, 2, 3) })
        // RFC 7252 §3: version 1, type (CON 0, ACK 2, RST 3), no token, code 0.00, message id.
        .map(({ messageId, type }) => Buffer.from([0x40 | (type << 4), 0, messageId >> 8, messageId & 0xff])),
    },
  );

interface Case {
  peer: number;
  datagrams: Buffer[];
}

/** The CoAP adapter target: in-memory datagrams to one adapter on a fake registry. */
export const coapMessages: FuzzTarget<Case> = {
  name: "coap-messages",
  description: "CoAP datagrams, valid and mutated, never crash the adapter; a live device keeps getting 2.04",
  async start() {
    const registry = new FakeRegistryClient({ devices: [LIVE, OTHER] });
    registry.start();
    const adapter = createCoapAdapter({
      registry,
      logger: createAdapterLogger("fuzz", "silent"),
      policyDefault: "allow",
      keepAliveSeconds: 1,
      maxMessageSize: 4096,
      ackTimeoutMs: 20,
      maxRetransmit: 1,
      transferTimeoutMs: 1000,
    });
    const builder = new FakeCoapClient(adapter);
    const live = new FakeCoapClient(adapter, { address: "10.0.0.1", port: 5683 });
    let n = 0;
    const cases: fc.Arbitrary<Case> = fc.record({
      peer: fc.nat(15),
      datagrams: fc.array(
        mutatedBytes(datagram(builder).map((b) => new Uint8Array(b))).map((b) => Buffer.from(b)),
        { minLength: 1, maxLength: 3 },
      ),
    });
    return {
      arbitrary: cases,
      async run(c) {
        const peer = { address: "10.0.0.2", port: 40_000 + c.peer };
        for (const d of c.datagrams) {
          try {
            adapter.handle(d, peer, () => {});
          } catch (e) {
            throw new Error(`handle threw: ${String(e)}`, { cause: e });
          }
        }
        await new Promise((r) => setImmediate(r));
      },
      async alive() {
        const before = registry.uplinks.filter((u) => u.deviceIntId === LIVE.deviceIntId).length;
        const answer = await live.request("0.02", "/mqtt/telemetry", {
          query: [`c=${LIVE.deviceId}`, `u=${LIVE.username}`, `p=${LIVE.token}`],
          payload: JSON.stringify({ n: ++n }),
        });
        if (answer.code !== "2.04") throw new Error(`the live device's publish was answered ${answer.code}`);
        const after = registry.uplinks.filter((u) => u.deviceIntId === LIVE.deviceIntId).length;
        if (after !== before + 1)
          throw new Error(`the live device's publish reached the registry ${after - before} times`);
        live.inbox.length = 0;
      },
      forget() {
        registry.uplinks.length = 0;
        registry.events.length = 0;
        registry.authAttempts.length = 0;
      },
      async stop() {
        adapter.close();
      },
    };
  },
};
