import type { Logger } from "pino";
import { Backoff, type BackoffOptions } from "@iot/adapter-core";
import type { LinkSettings } from "../channel-config.js";
import type { ModbusArea } from "../codec/register-address.js";
import { ModbusError } from "../modbus-error.js";
import { writeFunctionCode, type LinkWrite, type ModbusLink, type ReadValues } from "./modbus-link.js";
import { ModbusClient } from "./modbus-serial.js";

/** Settings of one link; times in ms. */
export interface ModbusSerialLinkOptions {
  readonly settings: LinkSettings;
  /** How long each request waits for its answer. */
  readonly timeoutMs: number;
  /** How many times a request that got no (or a garbled) answer is sent again. */
  readonly retries: number;
  readonly logger: Logger;
  /** Delays between reconnect attempts (default 200 ms doubling to 10 s, with jitter). */
  readonly backoff?: BackoffOptions;
}

/** The shortest wait for a connection to open, ms (a channel's answer timeout may be shorter). */
const MIN_CONNECT_TIMEOUT_MS = 1000;

type Done<T> = (err: unknown, result: T) => void;

/** The name a link has in logs and as its slaves' clientIp: the TCP host, or the serial port's path. */
export function linkEndpoint(settings: LinkSettings): string {
  return settings.kind === "tcp" ? settings.host : settings.path;
}

/** What modbus-serial's callback error means for the adapter. */
function toModbusError(err: unknown): ModbusError {
  if (err instanceof ModbusError) return err;
  const e = err as { modbusCode?: number; name?: string; errno?: string; message?: string } | undefined;
  if (typeof e?.modbusCode === "number") return ModbusError.exception(e.modbusCode);
  if (e?.name === "TransactionTimedOutError") return new ModbusError("TIMEOUT", "no answer");
  if (e?.name === "PortNotOpenError") return new ModbusError("LINK_DOWN", "the port is not open");
  return new ModbusError("BAD_RESPONSE", `bad answer: ${e?.message ?? String(err)}`, undefined, { cause: err });
}

/**
 * A {@link ModbusLink} over modbus-serial: Modbus TCP (`connectTCP`) or Modbus RTU on a serial port
 * (`connectRTUBuffered`, which needs the optional `serialport` package). It connects on the first request and again,
 * after a backoff, when the connection drops or cannot be opened; while it waits requests fail at once with
 * LINK_DOWN rather than queueing behind a dead link. Each request has its own timer, so a dropped connection or a
 * closed link never leaves one waiting forever.
 */
export class ModbusSerialLink implements ModbusLink {
  readonly endpoint: string;
  private client: ModbusClient | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private retryAt = 0;
  private lastProblem = "";
  private closed = false;
  /** Fails the request on the wire (its connection dropped, or the link closed). */
  private abortInFlight: ((err: ModbusError) => void) | undefined;

  constructor(private readonly options: ModbusSerialLinkOptions) {
    this.endpoint = linkEndpoint(options.settings);
    this.backoff = new Backoff({ initialMs: 200, maxMs: 10_000, ...options.backoff });
    this.log = options.logger.child({ component: "modbus-link", link: this.describe() });
  }

  read(unit: number, area: ModbusArea, offset: number, count: number): Promise<ReadValues> {
    return this.request<{ data: number[] | boolean[] }>((client, done) => {
      if (area === "coil") client.writeFC1(unit, offset, count, done);
      else if (area === "discreteInput") client.writeFC2(unit, offset, count, done);
      else if (area === "holdingRegister") client.writeFC3(unit, offset, count, done);
      else client.writeFC4(unit, offset, count, done);
    }).then((res) => res.data.slice(0, count));
  }

  async write(unit: number, write: LinkWrite): Promise<void> {
    const fc = writeFunctionCode(write);
    const echo = await this.request<{ address: number; state?: boolean; value?: number; length?: number }>(
      (client, done) => {
        if (fc === 5) client.writeFC5(unit, write.offset, write.values[0] as boolean, done);
        else if (fc === 6) client.writeFC6(unit, write.offset, write.values[0] as number, done);
        else if (fc === 15) client.writeFC15(unit, write.offset, [...(write.values as boolean[])], done);
        else client.writeFC16(unit, write.offset, [...(write.values as number[])], done);
      },
    );
    const expected =
      fc === 5
        ? echo.state === write.values[0]
        : fc === 6
          ? echo.value === write.values[0]
          : echo.length === write.values.length;
    if (echo.address !== write.offset || !expected)
      throw new ModbusError("BAD_RESPONSE", `the slave's echo of function ${fc} does not match the write`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.abortInFlight?.(new ModbusError("CLOSED", "the link was closed"));
    await this.release();
  }

  private describe(): string {
    const s = this.options.settings;
    return s.kind === "tcp" ? `tcp://${s.host}:${s.port}` : `rtu:${s.path}@${s.baudRate}`;
  }

  /** Queues a request behind the others and runs it with its retries. */
  private request<T>(send: (client: ModbusClient, done: Done<T>) => void): Promise<T> {
    const run = async (): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.attempt(send);
        } catch (err) {
          const e = toModbusError(err);
          if (!e.retryable || attempt >= this.options.retries) throw e;
        }
      }
    };
    const result = this.tail.then(run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async attempt<T>(send: (client: ModbusClient, done: Done<T>) => void): Promise<T> {
    if (this.closed) throw new ModbusError("CLOSED", "the link was closed");
    const client = await this.open();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (err: unknown, result?: T) => {
        if (settled) return;
        settled = true;
        if (this.abortInFlight === abort) this.abortInFlight = undefined;
        clearTimeout(timer);
        if (!err) return resolve(result as T);
        const e = toModbusError(err);
        if (e.code === "TIMEOUT" || e.code === "BAD_RESPONSE") this.resync(client, e.message);
        reject(e);
      };
      const abort = (err: ModbusError) => finish(err);
      this.abortInFlight = abort;
      const timer = setTimeout(
        () => finish(new ModbusError("TIMEOUT", `no answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      try {
        send(client, (err, result) => finish(err, result));
      } catch (err) {
        finish(err);
      }
    });
  }

  /** The open connection, opening one unless the backoff after a failure has not run out yet. */
  private async open(): Promise<ModbusClient> {
    if (this.client?.isOpen) return this.client;
    await this.release();
    const wait = this.retryAt - Date.now();
    if (wait > 0) throw new ModbusError("LINK_DOWN", `${this.lastProblem}; next attempt in ${wait} ms`);
    try {
      this.client = await this.connect();
      this.backoff.reset();
      this.retryAt = 0;
      if (this.lastProblem) this.log.info("link up again");
      this.lastProblem = "";
      return this.client;
    } catch (err) {
      this.down(`cannot open ${this.describe()}: ${(err as Error).message}`);
      throw new ModbusError("LINK_DOWN", this.lastProblem, undefined, { cause: err });
    }
  }

  private async connect(): Promise<ModbusClient> {
    const client = new ModbusClient();
    // Events of a connection that is no longer the link's are ignored; an "error" without a listener would throw.
    client.on("error", (err) => this.dropped(client, `link error: ${(err as Error)?.message ?? String(err)}`));
    client.on("close", () => this.dropped(client, "connection closed"));
    const s = this.options.settings;
    const ms = Math.max(MIN_CONNECT_TIMEOUT_MS, this.options.timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    try {
      const opening =
        s.kind === "tcp"
          ? client.connectTCP(s.host, { port: s.port })
          : client.connectRTUBuffered(s.path, {
              baudRate: s.baudRate,
              dataBits: s.dataBits,
              parity: s.parity,
              stopBits: s.stopBits,
            });
      await Promise.race([
        opening,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no connection in ${ms} ms`)), ms))),
      ]);
    } catch (err) {
      this.dispose(client);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return client;
  }

  /** The connection went away under a request: fail it now (LINK_DOWN) and reconnect on the next one. */
  private dropped(client: ModbusClient, why: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.dispose(client);
    this.log.warn({ reason: why }, "link dropped");
    this.abortInFlight?.(new ModbusError("LINK_DOWN", why));
  }

  /**
   * A TCP stream that carried a garbled or missing answer may hold stray bytes: modbus-serial would take the next
   * answer's frame length from them, and every later answer on the connection would be misread or time out. The next
   * request opens a fresh connection instead (serial lines resynchronise in modbus-serial's RTU buffer).
   */
  private resync(client: ModbusClient, why: string): void {
    if (this.options.settings.kind !== "tcp" || this.client !== client) return;
    this.client = undefined;
    this.dispose(client);
    this.log.debug({ reason: why }, "connection reset after a failed answer");
  }

  private down(problem: string): void {
    const delay = this.backoff.next();
    this.retryAt = Date.now() + delay;
    if (problem !== this.lastProblem) this.log.warn({ retryInMs: delay }, problem);
    this.lastProblem = problem;
  }

  private async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) this.dispose(client);
  }

  private dispose(client: ModbusClient): void {
    if (this.options.settings.kind === "tcp") client.destroy(() => undefined);
    else if (client.isOpen) client.close(() => undefined);
  }
}
