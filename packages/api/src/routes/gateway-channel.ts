import { z } from "zod";
import { intField } from "../params.js";

const range = (min: number, max: number, unit = "") =>
  intField.refine((v) => v >= min && v <= max, `must be ${min} to ${max}${unit}`);

/**
 * A Modbus gateway's channel settings (`channel` on the gateway record): how its Modbus adapter reaches the slaves
 * — Modbus TCP to `tcphost`:`tcpport`, or Modbus RTU on the serial port `ttycom` with its line settings — and how it
 * polls them. Omitted members take the documented defaults, which are stored, so the record shows what applies.
 * Stored as JSON text; null clears it. See docs/devices/modbus.md.
 */
export const gatewayChannel = z
  .object({
    chntype: z.enum(["tcp", "rtu"], "must be tcp (Modbus TCP) or rtu (Modbus RTU on a serial port)"),
    chnname: z.string().max(50, "at most 50 characters").optional(),
    tcphost: z
      .string()
      .regex(/^[A-Za-z0-9.:_-]{1,253}$/, "a host name or IP address")
      .optional(),
    tcpport: range(1, 65535).default(502),
    ttycom: z
      .string()
      .regex(/^[A-Za-z0-9/._-]{1,200}$/, "a serial device path such as /dev/ttyUSB0")
      .optional(),
    ttybaud: range(300, 4_000_000).default(9600),
    ttydata: range(7, 8).default(8),
    ttypari: z.enum(["none", "even", "odd"], "must be none, even or odd").default("none"),
    ttystop: range(1, 2).default(1),
    timeout: range(10, 60_000, " ms").default(1000),
    retries: range(0, 5).default(1),
    pollInterval: range(100, 86_400_000, " ms").default(1000),
    byteOrder: z.enum(["ABCD", "CDAB", "BADC", "DCBA"], "must be ABCD, CDAB, BADC or DCBA").default("ABCD"),
    maxGap: range(0, 124).default(8),
  })
  .superRefine((c, ctx) => {
    if (c.chntype === "tcp" && !c.tcphost)
      ctx.addIssue({ code: "custom", path: ["tcphost"], message: "required when chntype is tcp" });
    if (c.chntype === "rtu" && !c.ttycom)
      ctx.addIssue({ code: "custom", path: ["ttycom"], message: "required when chntype is rtu" });
  })
  .nullish()
  .transform((c) => (c === undefined ? undefined : c === null ? null : JSON.stringify(c)));
