import pino, { type Logger } from "pino";

/** The adapter's logger: JSON lines on stderr, so stdout stays free for the READY line. */
export function createAdapterLogger(name: string, level: string): Logger {
  return pino({ name, level }, pino.destination({ dest: 2, sync: true }));
}
