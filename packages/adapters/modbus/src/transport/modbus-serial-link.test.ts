import { createServer, type AddressInfo, type Socket } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemorySlave } from "../memory-slave.js";
import { ModbusError } from "../modbus-error.js";
import { writeFunctionCode } from "./modbus-link.js";
import { ModbusSerialLink } from "./modbus-serial-link.js";

let logs: string[] = [];
const logger = pino({ level: "warn" }, { write: (line: string) => logs.push(JSON.parse(line).msg) });
let slave: MemorySlave;
let link: ModbusSerialLink;

async function setup(options: { timeoutMs?: number; retries?: number } = {}) {
  logs = [];
  slave = await MemorySlave.start([1, 2]);
  link = new ModbusSerialLink({
    settings: { kind: "tcp", host: "127.0.0.1", port: slave.port },
    timeoutMs: options.timeoutMs ?? 300,
    retries: options.retries ?? 1,
    logger,
    backoff: { initialMs: 50, maxMs: 100 },
  });
}

afterEach(async () => {
  await link?.close();
  await slave?.stop();
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("resolved");
    },
    (err: unknown) => err as ModbusError,
  );

describe("writeFunctionCode", () => {
  it("uses the single-item codes for one value and the multiple ones for more", () => {
    expect(writeFunctionCode({ area: "coil", offset: 0, values: [true] })).toBe(5);
    expect(writeFunctionCode({ area: "coil", offset: 0, values: [true, false] })).toBe(15);
    expect(writeFunctionCode({ area: "holdingRegister", offset: 0, values: [1] })).toBe(6);
    expect(writeFunctionCode({ area: "holdingRegister", offset: 0, values: [1, 2] })).toBe(16);
  });
});

describe("ModbusSerialLink over Modbus TCP", () => {
  it("reads each area of the unit asked, bits cut to the count asked", async () => {
    await setup();
    slave.set(1, "holdingRegister", 10, [0x42f6, 0xe979]);
    slave.set(2, "holdingRegister", 10, [7, 8]);
    slave.set(1, "inputRegister", 0, [65535]);
    slave.set(1, "coil", 3, [1, 0, 1]);
    slave.set(1, "discreteInput", 0, [1]);
    expect(await link.read(1, "holdingRegister", 10, 2)).toEqual([0x42f6, 0xe979]);
    expect(await link.read(2, "holdingRegister", 10, 2)).toEqual([7, 8]);
    expect(await link.read(1, "inputRegister", 0, 1)).toEqual([65535]);
    expect(await link.read(1, "coil", 3, 3)).toEqual([true, false, true]);
    expect(await link.read(1, "discreteInput", 0, 2)).toEqual([true, false]);
    expect(link.endpoint).toBe("127.0.0.1");
  });

  it("writes coils and holding registers with function codes 5, 15, 6 and 16, confirmed by the slave", async () => {
    await setup();
    await link.write(1, { area: "coil", offset: 4, values: [true] });
    await link.write(1, { area: "coil", offset: 8, values: [true, false, true] });
    await link.write(1, { area: "holdingRegister", offset: 0, values: [1234] });
    await link.write(1, { area: "holdingRegister", offset: 5, values: [0x42f6, 0xe979] });
    expect(slave.get(1, "coil", 4, 1)).toEqual([1]);
    expect(slave.get(1, "coil", 8, 3)).toEqual([1, 0, 1]);
    expect(slave.get(1, "holdingRegister", 0, 1)).toEqual([1234]);
    expect(slave.get(1, "holdingRegister", 5, 2)).toEqual([0x42f6, 0xe979]);
  });

  it("rejects an exception response with its code and name, without sending it again", async () => {
    await setup({ retries: 3 });
    slave.failReads(1, "holdingRegister", 2, 2);
    const err = await failure(link.read(1, "holdingRegister", 0, 4));
    expect(err).toBeInstanceOf(ModbusError);
    expect(err.code).toBe("EXCEPTION");
    expect(err.exception).toEqual({ code: 2, name: "Illegal Data Address" });
    expect(err.message).toBe("exception 2 (Illegal Data Address)");
    expect(slave.reads).toHaveLength(1);
  });

  it("sends a request that gets no answer again `retries` times, then rejects with TIMEOUT", async () => {
    await setup({ timeoutMs: 100, retries: 2 });
    slave.silent.add(1);
    const started = Date.now();
    const err = await failure(link.read(1, "holdingRegister", 0, 1));
    expect(err.code).toBe("TIMEOUT");
    expect(slave.reads).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    slave.silent.delete(1);
    expect(await link.read(1, "holdingRegister", 0, 1)).toEqual([0]);
  });

  it("sends one request at a time, in call order", async () => {
    await setup();
    slave.delayMs = 5;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => link.read(i % 2 ? 1 : 2, "holdingRegister", i, 1)),
    );
    expect(results).toHaveLength(10);
    expect(slave.maxConcurrent).toBe(1);
    expect(slave.reads.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("reconnects after the slave dropped the connection", async () => {
    await setup();
    slave.set(1, "holdingRegister", 0, [42]);
    expect(await link.read(1, "holdingRegister", 0, 1)).toEqual([42]);
    slave.dropConnections();
    await vi.waitFor(() => expect(logs).toContain("link dropped"));
    expect(await link.read(1, "holdingRegister", 0, 1)).toEqual([42]);
  });

  it("fails fast with LINK_DOWN while the slave is gone, and comes back after the backoff when it returns", async () => {
    await setup({ timeoutMs: 200 });
    const port = slave.port;
    await slave.stop();
    const started = Date.now();
    const first = await failure(link.read(1, "holdingRegister", 0, 1));
    expect(first.code).toBe("LINK_DOWN");
    expect(first.message).toContain(`cannot open tcp://127.0.0.1:${port}`);
    const during = await failure(link.read(1, "holdingRegister", 0, 1));
    expect(during.message).toContain("next attempt in");
    expect(Date.now() - started).toBeLessThan(150);
    slave = await MemorySlave.start([1], port);
    slave.set(1, "holdingRegister", 0, [9]);
    // Reads fail fast until the backoff has passed, then reach the slave again.
    await vi.waitFor(async () => expect(await link.read(1, "holdingRegister", 0, 1)).toEqual([9]));
  });

  it("fails the request in flight and those queued with CLOSED when closed", async () => {
    await setup({ timeoutMs: 5000 });
    slave.silent.add(1);
    const inFlight = failure(link.read(1, "holdingRegister", 0, 1));
    const queued = failure(link.read(2, "holdingRegister", 0, 1));
    await vi.waitFor(() => expect(slave.unanswered).toBe(1));
    await link.close();
    expect((await inFlight).code).toBe("CLOSED");
    expect((await queued).code).toBe("CLOSED");
  });
});

describe("ModbusSerialLink over a Modbus TCP stream that carried stray bytes", () => {
  it("reads again after an answer followed by stray bytes, which had every later answer time out", async () => {
    // A raw slave: answers each 12-byte FC 3 request with registers [7, 8]; the first answer has 3 bytes too many.
    let answers = 0;
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on("data", (req) => {
        const pdu = Buffer.from([3, 4, 0, 7, 0, 8]);
        const head = Buffer.from([req[0]!, req[1]!, 0, 0, 0, pdu.length + 1, req[6]!]);
        socket.write(Buffer.concat([head, pdu, answers++ === 0 ? Buffer.from([0xaf, 0x40, 0x09]) : Buffer.alloc(0)]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    link = new ModbusSerialLink({
      settings: { kind: "tcp", host: "127.0.0.1", port: (server.address() as AddressInfo).port },
      timeoutMs: 100,
      retries: 1,
      logger,
      backoff: { initialMs: 10, maxMs: 10 },
    });
    try {
      expect(await link.read(1, "holdingRegister", 0, 2)).toEqual([7, 8]);
      expect(await link.read(1, "holdingRegister", 0, 2)).toEqual([7, 8]);
    } finally {
      await link.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("ModbusSerialLink over Modbus RTU", () => {
  it("answers LINK_DOWN naming the serial port when it cannot be opened", async () => {
    link = new ModbusSerialLink({
      settings: { kind: "rtu", path: "/dev/no-such-tty", baudRate: 9600, dataBits: 8, parity: "none", stopBits: 1 },
      timeoutMs: 200,
      retries: 0,
      logger,
    });
    const err = await failure(link.read(1, "holdingRegister", 0, 1));
    expect(err.code).toBe("LINK_DOWN");
    expect(err.message).toContain("cannot open rtu:/dev/no-such-tty@9600");
    expect(link.endpoint).toBe("/dev/no-such-tty");
  });
});
