/**
 * Modbus TCP replies: a slave on a real socket (127.0.0.1) answers each read of the adapter's link
 * (ModbusSerialLink over modbus-serial) with the case's reply — a valid one for the request (FC 1-4, same
 * transaction id, byte count and values), mutated (bits, truncation, extension, swaps) or an exception reply. The
 * read must settle with values of the right shape or a ModbusError, never another error or a crash; the values
 * are then decoded for every point layout and byte order, which promises a result. Alive: a valid read on the
 * same link still returns exactly the slave's registers.
 */
import { createServer, type AddressInfo, type Socket } from "node:net";
import fc from "fast-check";
import { createAdapterLogger } from "@iot/adapter-core";
import type { ModbusArea } from "../../../packages/adapters/modbus/src/codec/register-address.js";
import { BYTE_ORDERS, decodeValue, type PointLayout } from "../../../packages/adapters/modbus/src/codec/value-codec.js";
import { ModbusError } from "../../../packages/adapters/modbus/src/modbus-error.js";
import { ModbusSerialLink } from "../../../packages/adapters/modbus/src/transport/modbus-serial-link.js";
import { applyMutations, mutation, type FuzzTarget, type Mutation } from "../harness.js";

const AREAS: ModbusArea[] = ["coil", "discreteInput", "holdingRegister", "inputRegister"];
const FC: Record<ModbusArea, number> = { coil: 1, discreteInput: 2, holdingRegister: 3, inputRegister: 4 };
const LAYOUTS: PointLayout[] = [
  { kind: "coil" },
  { kind: "bit", bit: 15 },
  { kind: "integer", signed: true, registers: 2 },
  { kind: "integer", signed: false, registers: 1 },
  { kind: "float", registers: 2 },
  { kind: "float", registers: 4 },
  { kind: "time" },
];

interface Case {
  area: ModbusArea;
  offset: number;
  count: number;
  /** Register values (or bits) of a valid answer. */
  values: number[];
  /** What the slave does to the valid answer: nothing, mutations, an exception code instead. */
  reply: { kind: "valid" } | { kind: "mutated"; mutations: Mutation[] } | { kind: "exception"; code: number };
}

const cases: fc.Arbitrary<Case> = fc
  .record({ area: fc.constantFrom(...AREAS), offset: fc.nat(0xffff), count: fc.integer({ min: 1, max: 20 }) })
  .chain((head) =>
    fc.record({
      area: fc.constant(head.area),
      offset: fc.constant(head.offset),
      count: fc.constant(head.count),
      values: fc.array(fc.nat(head.area === "coil" || head.area === "discreteInput" ? 1 : 0xffff), {
        minLength: head.count,
        maxLength: head.count,
      }),
      reply: fc.oneof(
        { weight: 1, arbitrary: fc.constant({ kind: "valid" as const }) },
        {
          weight: 6,
          arbitrary: fc.record({
            kind: fc.constant("mutated" as const),
            mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("exception" as const), code: fc.nat(255) }) },
      ),
    }),
  );

/** The PDU of a valid answer to a read of `values` in `area` (Modbus Application Protocol §6.1-6.4). */
function answerPdu(area: ModbusArea, values: readonly number[]): Buffer {
  if (area === "coil" || area === "discreteInput") {
    const bytes = Buffer.alloc(Math.ceil(values.length / 8));
    values.forEach((v, i) => {
      if (v) bytes[i >> 3]! |= 1 << (i & 7);
    });
    return Buffer.concat([Buffer.from([FC[area], bytes.length]), bytes]);
  }
  const bytes = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => bytes.writeUInt16BE(v, i * 2));
  return Buffer.concat([Buffer.from([FC[area], bytes.length]), bytes]);
}

/** An MBAP-framed reply to the request `req` (transaction id and unit copied), PDU `pdu`. */
function frame(req: Buffer, pdu: Buffer): Buffer {
  const head = Buffer.alloc(7);
  req.copy(head, 0, 0, 2);
  head.writeUInt16BE(0, 2);
  head.writeUInt16BE(pdu.length + 1, 4);
  head[6] = req[6]!;
  return Buffer.concat([head, pdu]);
}

function replyTo(req: Buffer, c: Case): Buffer {
  const valid = frame(req, answerPdu(c.area, c.values));
  if (c.reply.kind === "valid") return valid;
  if (c.reply.kind === "exception") return frame(req, Buffer.from([FC[c.area] | 0x80, c.reply.code]));
  return Buffer.from(applyMutations(valid, c.reply.mutations));
}

function checkValues(c: Case, values: readonly (number | boolean)[]): void {
  if (values.length > c.count) throw new Error(`read of ${c.count} returned ${values.length} values`);
  for (const v of values)
    if (typeof v !== "boolean" && !(Number.isInteger(v) && v >= 0 && v <= 0xffff))
      throw new Error(`read returned ${String(v)}, neither a bit nor a 16-bit register`);
  for (const layout of LAYOUTS)
    for (const order of BYTE_ORDERS) {
      try {
        decodeValue(layout, values, order);
      } catch (e) {
        throw new Error(`decodeValue(${layout.kind}) threw: ${String(e)}`, { cause: e });
      }
    }
}

/** The Modbus reply target: a real-socket slave answering the adapter's link with generated replies. */
export const modbusReplies: FuzzTarget<Case> = {
  name: "modbus-replies",
  description: "Modbus TCP replies, valid and mutated, settle a read with values or a ModbusError; the link lives on",
  async start() {
    let current: Case | undefined;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      let pending = Buffer.alloc(0);
      socket.on("data", (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 12) {
          const req = pending.subarray(0, 12);
          pending = pending.subarray(12);
          if (current) socket.write(replyTo(req, current));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const link = new ModbusSerialLink({
      settings: { kind: "tcp", host: "127.0.0.1", port },
      timeoutMs: 40,
      retries: 0,
      logger: createAdapterLogger("fuzz", "silent"),
      backoff: { initialMs: 1, maxMs: 5 },
    });
    const read = async (c: Case) => {
      current = c;
      try {
        return await link.read(1, c.area, c.offset, c.count);
      } finally {
        current = undefined;
      }
    };
    return {
      arbitrary: cases,
      async run(c) {
        try {
          checkValues(c, await read(c));
        } catch (e) {
          if (!(e instanceof ModbusError)) throw e;
        }
      },
      async alive() {
        const c: Case = {
          area: "holdingRegister",
          offset: 10,
          count: 3,
          values: [1, 65535, 42],
          reply: { kind: "valid" },
        };
        // A garbled answer can leave bytes behind or drop the connection: the link must recover within a few reads.
        let got: unknown;
        for (let i = 0; i < 20; i++) {
          try {
            got = await read(c);
            break;
          } catch (e) {
            got = e;
            await new Promise((r) => setTimeout(r, 10));
          }
        }
        if (JSON.stringify(got) !== JSON.stringify(c.values))
          throw new Error(`a valid read returned ${String(got)}, not ${c.values.join(",")}`);
      },
      async stop() {
        await link.close();
        for (const s of sockets) s.destroy();
        await new Promise((r) => server.close(r));
      },
    };
  },
};
