/**
 * The uplink batch's codec: protobuf-es's `create` + `toBinary` and `fromBinary` of AdapterMessage against the proto
 * package's uplink codec (`encodeUplinksMessage`, `decodeUplinksMessage`: field by field on protobuf-es's own
 * `BinaryWriter`/`BinaryReader`), measured in the same process on the same batches. That codec is kept only while it
 * clearly wins (docs/performance.md).
 *
 *   pnpm bench:proto [uplinks per batch=500] [batches per pass=400]
 *
 * Both sides encode the same UplinkInit objects (what the adapter's buffer holds) and decode the same bytes; their
 * results are checked equal before anything is timed. Each side runs unmeasured first (V8 optimises it), then five
 * measured passes alternating with the other side's; each side's median pass is reported as CPU ns per uplink.
 */
import {
  AdapterMessageSchema,
  create,
  decodeUplinksMessage,
  encodeUplinksMessage,
  fromBinary,
  toBinary,
  type AdapterMessage,
  type UplinkInit,
} from "../packages/proto/src/index.js";
import { positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const perBatch = positiveInt(process.argv[2], 500);
const batches = positiveInt(process.argv[3], 400);

/** Uplinks as the MQTT adapter's buffer holds them: QoS 1 telemetry of many devices, a 64-byte payload each. */
function sampleBatch(first: number): UplinkInit[] {
  const payload = new Uint8Array(64).map((_, i) => (i * 37 + first) & 0xff);
  return Array.from({ length: perBatch }, (_, i) => ({
    seq: BigInt(first + i + 1),
    sessionId: `3f2a9c1e-0000-4000-8000-${String((first + i) % 20_000).padStart(12, "0")}`,
    deviceIntId: BigInt(1 + ((first + i) % 20_000)),
    topic: "up/telemetry",
    payload,
    clientIp: "127.0.0.1",
    receivedAtMs: BigInt(Date.now()),
    qos: 1,
    tenantId: "tenant-bench",
    gatewayDeviceIntId: 0n,
    metadata: "",
    resendId: `mqtt:${1 + ((first + i) % 65_535)}`,
    maybeResend: false,
  }));
}

/** protobuf-es: the message made from its init shape, then `toBinary` (a lone uplink without the batch's envelope). */
function encodeWithProtobufEs(uplinks: UplinkInit[]): Uint8Array {
  const kind =
    uplinks.length === 1
      ? { case: "uplink" as const, value: uplinks[0]! }
      : { case: "uplinkBatch" as const, value: { uplinks } };
  return toBinary(AdapterMessageSchema, create(AdapterMessageSchema, { kind }));
}

function decodeWithProtobufEs(bytes: Uint8Array): AdapterMessage {
  return fromBinary(AdapterMessageSchema, bytes);
}

const inputs = Array.from({ length: batches }, (_, i) => sampleBatch(i * perBatch));
const encoded = inputs.map(encodeWithProtobufEs);

// Both sides must agree before their speed means anything.
for (let i = 0; i < Math.min(batches, 4); i++) {
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
  if (!same(encodeUplinksMessage(inputs[i]!), encoded[i]!))
    throw new Error("BinaryWriter's bytes differ from toBinary's");
  const decoded = decodeUplinksMessage(encoded[i]!);
  if (!decoded || !same(toBinary(AdapterMessageSchema, decoded), encoded[i]!))
    throw new Error("BinaryReader's message differs from fromBinary's");
}

/**
 * CPU ns per uplink of one pass over every batch: the process's CPU time (user + system, garbage collection
 * included), which other work on a shared machine distorts far less than the wall clock.
 */
function pass(run: (i: number) => unknown): number {
  const started = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < batches; i++) sink += run(i) === undefined ? 0 : 1;
  const used = process.cpuUsage(started);
  if (sink !== batches) throw new Error("a codec answered nothing");
  return ((used.user + used.system) * 1000) / (batches * perBatch);
}

interface Side {
  name: string;
  run: (i: number) => unknown;
  passes: number[];
}

const sides = {
  encode: [
    { name: "toBinary", run: (i: number) => encodeWithProtobufEs(inputs[i]!), passes: [] as number[] },
    { name: "BinaryWriter", run: (i: number) => encodeUplinksMessage(inputs[i]!), passes: [] as number[] },
  ],
  decode: [
    { name: "fromBinary", run: (i: number) => decodeWithProtobufEs(encoded[i]!), passes: [] as number[] },
    { name: "BinaryReader", run: (i: number) => decodeUplinksMessage(encoded[i]!), passes: [] as number[] },
  ],
} satisfies Record<string, [Side, Side]>;

/** Measured passes of each side, alternated. */
const PASSES = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const [what, [library, written]] of Object.entries(sides)) {
  for (const side of [library, written]) pass(side.run); // unmeasured: V8 optimises both first
  for (let round = 0; round < PASSES; round++) for (const side of [library, written]) side.passes.push(pass(side.run));
  const [lib, wire] = [median(library.passes), median(written.passes)];
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
  console.log(`${what} ${library.name.padEnd(12)} ${lib.toFixed(0).padStart(5)} ns/uplink (${fmt(library.passes)})`);
  console.log(`${what} ${written.name.padEnd(12)} ${wire.toFixed(0).padStart(5)} ns/uplink (${fmt(written.passes)})`);
  console.log(`${what} ratio ${(lib / wire).toFixed(2)}x (${library.name} / ${written.name})`);
  printResult({
    measure: `uplink batch ${what}, ${written.name} (${perBatch} a batch)`,
    figure: `${wire.toFixed(0)} ns/uplink`,
    baseline: `${library.name} ${lib.toFixed(0)} ns/uplink`,
    ratio: lib / wire,
    goal: "",
    met: null,
  });
}
