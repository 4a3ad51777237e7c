/**
 * Why a Modbus request failed: the slave answered with an exception (it is alive, the request was wrong), no answer
 * came in time, the link to the slaves is down (TCP refused or dropped, serial port missing), the answer was garbled
 * (CRC, length, echo), or the link was closed by the adapter.
 */
export type ModbusErrorCode = "EXCEPTION" | "TIMEOUT" | "LINK_DOWN" | "BAD_RESPONSE" | "CLOSED";

/** Exception codes a slave answers with (Modbus Application Protocol V1.1b3 §7), by number. */
const EXCEPTION_NAMES: Readonly<Record<number, string>> = {
  1: "Illegal Function",
  2: "Illegal Data Address",
  3: "Illegal Data Value",
  4: "Server Device Failure",
  5: "Acknowledge",
  6: "Server Device Busy",
  8: "Memory Parity Error",
  10: "Gateway Path Unavailable",
  11: "Gateway Target Device Failed to Respond",
};

/** The name of an exception code; unknown codes are named by number. */
export function exceptionName(code: number): string {
  return EXCEPTION_NAMES[code] ?? `Unknown Exception ${code}`;
}

/** The one error class of the Modbus adapter's transport; `exception` is set for EXCEPTION. */
export class ModbusError extends Error {
  override readonly name = "ModbusError";

  constructor(
    readonly code: ModbusErrorCode,
    message: string,
    readonly exception?: { readonly code: number; readonly name: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** An exception response: `exception 2 (Illegal Data Address)`. */
  static exception(code: number): ModbusError {
    const name = exceptionName(code);
    return new ModbusError("EXCEPTION", `exception ${code} (${name})`, { code, name });
  }

  /** Whether asking again may get an answer (no answer or a garbled one); exceptions and a down link are final. */
  get retryable(): boolean {
    return this.code === "TIMEOUT" || this.code === "BAD_RESPONSE";
  }
}
