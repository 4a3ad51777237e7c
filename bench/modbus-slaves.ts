/**
 * The Modbus TCP slaves of `pnpm bench:modbus`, run by bench/modbus-poll.ts in a child process of their own so that
 * answering them is not counted as the adapter's CPU. Not meant to be started by hand:
 *
 *   tsx bench/modbus-slaves.ts <units> <holding registers per unit>
 *
 * One MemorySlave (a modbus-serial ServerTCP on 127.0.0.1, like a Modbus TCP gateway) answering units 1..n. Every
 * unit's holding registers follow the benchmark's layout: offset 0 a counter (uint16) and, with 3 registers or more,
 * offsets 1–2 a float32 (ABCD), both changing every second so the adapter has a change to report on each poll; the
 * other registers hold fixed int16 values. Over IPC it sends `{ type: "ready", port }` once listening and answers
 * `{ type: "cpu" }` with its process.cpuUsage(); it stops when the parent disconnects (ends or dies).
 */
import { MemorySlave } from "@iot/adapter-modbus";

const units = Number(process.argv[2]);
const registers = Number(process.argv[3]);
if (!process.send) throw new Error("bench/modbus-slaves.ts runs as a child of bench/modbus-poll.ts");
if (!(Number.isSafeInteger(units) && units >= 1 && units <= 247 && Number.isSafeInteger(registers)))
  throw new Error(`expected units (1..247) and registers, got ${process.argv.slice(2).join(" ")}`);

/** The two registers of float32 `value`, most significant word first (ABCD). */
function float32Words(value: number): number[] {
  const b = Buffer.alloc(4);
  b.writeFloatBE(value);
  return [b.readUInt16BE(0), b.readUInt16BE(2)];
}

const slave = await MemorySlave.start(Array.from({ length: units }, (_, i) => i + 1));
let counter = 0;

/** Writes the changing registers (counter, float) of every unit; fixed ones are written once. */
function tick(first: boolean): void {
  for (const unit of slave.units.keys()) {
    const count = (unit * 100 + counter) % 65536;
    slave.set(unit, "holdingRegister", 0, [count]);
    if (registers >= 3) slave.set(unit, "holdingRegister", 1, float32Words(20 + count / 8));
    if (!first) continue;
    const from = registers >= 3 ? 3 : 1;
    const fixed = Array.from({ length: Math.max(0, registers - from) }, (_, i) => (unit * 100 + from + i) % 32768);
    slave.set(unit, "holdingRegister", from, fixed);
  }
  slave.reads.length = 0; // the log of reads is for tests; here it would only grow
  counter++;
}

tick(true);
const ticking = setInterval(() => tick(false), 1000);

process.on("message", (m: { type?: string }) => {
  if (m.type === "cpu") process.send!({ type: "cpu", usage: process.cpuUsage() });
});
// The server's sockets go with the process: nothing is left to stop once the parent is gone.
process.on("disconnect", () => {
  clearInterval(ticking);
  process.exit(0);
});
process.send({ type: "ready", port: slave.port });
