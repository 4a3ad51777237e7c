import type { ModbusArea } from "../codec/register-address.js";

/** Values of a read: registers (0..65535) for register areas, booleans for coils and discrete inputs. */
export type ReadValues = readonly number[] | readonly boolean[];

/** What a write sets: coils from `offset` (function code 5 for one, 15 for more), or holding registers (6, 16). */
export type LinkWrite =
  | { readonly area: "coil"; readonly offset: number; readonly values: readonly boolean[] }
  | { readonly area: "holdingRegister"; readonly offset: number; readonly values: readonly number[] };

/** The function code a write goes out with: single-item codes 5 and 6 for one value, 15 and 16 for more. */
export function writeFunctionCode(write: LinkWrite): 5 | 6 | 15 | 16 {
  if (write.area === "coil") return write.values.length === 1 ? 5 : 15;
  return write.values.length === 1 ? 6 : 16;
}

/**
 * A Modbus master's connection to the slaves of one channel (a TCP server or a serial line). Requests go out one at
 * a time in call order, each retried as the channel says when no answer comes; failures reject with a ModbusError
 * (EXCEPTION with the slave's code and name, TIMEOUT, LINK_DOWN, BAD_RESPONSE, CLOSED). The link reconnects by
 * itself after it drops.
 */
export interface ModbusLink {
  /** Where the slaves are, as a slave session's clientIp: the TCP host or the serial port's path. */
  readonly endpoint: string;
  /** Reads `count` registers (or bits) of `area` from `offset` of unit `unit` (function code 1, 2, 3 or 4). */
  read(unit: number, area: ModbusArea, offset: number, count: number): Promise<ReadValues>;
  /** Writes coils or holding registers of unit `unit`; resolves when the slave confirmed the write. */
  write(unit: number, write: LinkWrite): Promise<void>;
  /** Fails what is queued (CLOSED) and releases the connection. */
  close(): Promise<void>;
}
