import { createServer } from "node:net";
import type { ModbusArea } from "./codec/register-address.js";
import { ModbusServerTCP, type IServiceVector } from "./transport/modbus-serial.js";

/** One read request the slave answered or refused, as seen on the wire (register areas only). */
export interface SlaveRead {
  readonly unit: number;
  readonly area: "inputRegister" | "holdingRegister";
  readonly offset: number;
  readonly count: number;
}

type Callback<T> = (err: { modbusErrorCode: number } | null, value?: T) => void;

/** A port the OS had free a moment ago (modbus-serial's ServerTCP takes port 0 for its default 502). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Modbus TCP slaves in memory for tests and benchmarks: a modbus-serial ServerTCP on 127.0.0.1 answering any unit id
 * listed in `units`, with coils, discrete inputs, input and holding registers per unit (unset ones read 0/false).
 * Units not listed, and those in `silent`, never answer (a dead slave); `failReads`/`failWrites` make an address
 * answer an exception. Register reads are recorded in `reads` (unless `recordReads` is false: a long-running
 * simulation, such as `iot simulate --protocol modbus`, would keep every poll).
 */
export class MemorySlave {
  readonly units = new Map<number, Record<ModbusArea, Map<number, number>>>();
  readonly silent = new Set<number>();
  readonly reads: SlaveRead[] = [];
  /** Whether register reads are kept in `reads` (default true). */
  recordReads = true;
  /** ms each answer is held back (a slow slave); requests held at once are counted in `maxConcurrent`. */
  delayMs = 0;
  maxConcurrent = 0;
  /** Requests left unanswered (to a unit not listed or in `silent`): a test sees a request is in flight. */
  unanswered = 0;
  private concurrent = 0;
  private readonly readFaults = new Map<string, number>();
  private readonly writeFaults = new Map<string, number>();
  private server: InstanceType<typeof ModbusServerTCP> | undefined;
  port = 0;

  /** Starts a slave server on 127.0.0.1 serving `units`, on `port` or else a free one. */
  static async start(units: readonly number[] = [], port?: number): Promise<MemorySlave> {
    const slave = new MemorySlave();
    for (const u of units) slave.unit(u);
    if (port !== undefined) {
      await slave.listen(port);
      return slave;
    }
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      try {
        await slave.listen(port);
        return slave;
      } catch (err) {
        if (attempt >= 5) throw err;
      }
    }
  }

  /** The memory of unit `n`, which answers from now on. */
  unit(n: number): Record<ModbusArea, Map<number, number>> {
    let memory = this.units.get(n);
    if (!memory) {
      memory = { coil: new Map(), discreteInput: new Map(), inputRegister: new Map(), holdingRegister: new Map() };
      this.units.set(n, memory);
    }
    return memory;
  }

  /** Sets registers (or bits, 0/1) of a unit from `offset`. */
  set(unit: number, area: ModbusArea, offset: number, values: readonly number[]): void {
    values.forEach((v, i) => this.unit(unit)[area].set(offset + i, v));
  }

  /** Registers (or bits) of a unit from `offset`. */
  get(unit: number, area: ModbusArea, offset: number, count: number): number[] {
    return Array.from({ length: count }, (_, i) => this.units.get(unit)?.[area].get(offset + i) ?? 0);
  }

  /** Reads of this address answer exception `code`. */
  failReads(unit: number, area: ModbusArea, offset: number, code: number): void {
    this.readFaults.set(`${unit}:${area}:${offset}`, code);
  }

  /** Writes to this address answer exception `code`. */
  failWrites(unit: number, area: ModbusArea, offset: number, code: number): void {
    this.writeFaults.set(`${unit}:${area}:${offset}`, code);
  }

  /** Cuts every master's TCP connection (the slave stays up). */
  dropConnections(): void {
    for (const sock of this.server?.socks.keys() ?? []) sock.destroy();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = new ModbusServerTCP(this.vector(), { host: "127.0.0.1", port });
      server.on("initialized", () => {
        this.server = server;
        this.port = port;
        resolve();
      });
      server.on("serverError", (err) => reject(err ?? new Error("server error")));
      server.on("socketError", () => undefined);
    });
  }

  /** Answers through `cb` unless the unit is dead or the address faulted (then an exception). */
  private answer<T>(
    unit: number,
    area: ModbusArea,
    offsets: number[],
    write: boolean,
    cb: Callback<T>,
    value: () => T,
  ) {
    if (!this.units.has(unit) || this.silent.has(unit)) {
      this.unanswered++;
      return;
    }
    const faults = write ? this.writeFaults : this.readFaults;
    const code = offsets.map((o) => faults.get(`${unit}:${area}:${o}`)).find((c) => c !== undefined);
    const reply = () => (code !== undefined ? cb({ modbusErrorCode: code }) : cb(null, value()));
    if (this.delayMs === 0) return reply();
    this.maxConcurrent = Math.max(this.maxConcurrent, ++this.concurrent);
    setTimeout(() => {
      this.concurrent--;
      reply();
    }, this.delayMs);
  }

  private registers(unit: number, area: "inputRegister" | "holdingRegister", offset: number, count: number) {
    return (cb: Callback<number[] | number>, single: boolean) => {
      if (this.recordReads) this.reads.push({ unit, area, offset, count });
      const offsets = Array.from({ length: count }, (_, i) => offset + i);
      this.answer(unit, area, offsets, false, cb, () => {
        const values = this.get(unit, area, offset, count);
        return single ? values[0]! : values;
      });
    };
  }

  private vector(): IServiceVector {
    const bit = (area: "coil" | "discreteInput") => (addr: number, unit: number, cb: Callback<boolean>) =>
      this.answer(unit, area, [addr], false, cb, () => this.get(unit, area, addr, 1)[0] === 1);
    return {
      getCoil: bit("coil"),
      getDiscreteInput: bit("discreteInput"),
      getInputRegister: (addr: number, unit: number, cb: Callback<number>) =>
        this.registers(unit, "inputRegister", addr, 1)(cb as Callback<number[] | number>, true),
      getMultipleInputRegisters: (addr: number, count: number, unit: number, cb: Callback<number[]>) =>
        this.registers(unit, "inputRegister", addr, count)(cb as Callback<number[] | number>, false),
      getHoldingRegister: (addr: number, unit: number, cb: Callback<number>) =>
        this.registers(unit, "holdingRegister", addr, 1)(cb as Callback<number[] | number>, true),
      getMultipleHoldingRegisters: (addr: number, count: number, unit: number, cb: Callback<number[]>) =>
        this.registers(unit, "holdingRegister", addr, count)(cb as Callback<number[] | number>, false),
      setCoil: (addr: number, value: boolean, unit: number, cb: Callback<void>) =>
        this.answer(unit, "coil", [addr], true, cb, () => this.set(unit, "coil", addr, [value ? 1 : 0])),
      setRegister: (addr: number, value: number, unit: number, cb: Callback<void>) =>
        this.answer(unit, "holdingRegister", [addr], true, cb, () => this.set(unit, "holdingRegister", addr, [value])),
      setRegisterArray: (addr: number, values: number[], unit: number, cb: Callback<void>) =>
        this.answer(
          unit,
          "holdingRegister",
          [...values.keys()].map((i) => addr + i),
          true,
          cb,
          () => this.set(unit, "holdingRegister", addr, values),
        ),
    } as IServiceVector;
  }
}
