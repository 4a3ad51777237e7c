import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "pino";
import { parseSaved, type SavedRegistration } from "./saved-registration.js";

/** How long after a change the file is written, ms: changes in a burst (a registration storm) make one write. */
const WRITE_DELAY_MS = 100;

/**
 * The file the LwM2M adapter keeps its registrations and their observations in, so that a restarted adapter knows
 * the clients that are still registered (they keep their registration: LwM2M clients only register again when an
 * Update is refused). Written whole, to a temporary file renamed over the old one, shortly after each change.
 */
export class RegistrationFile {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly snapshot: () => SavedRegistration[],
    private readonly log: Logger,
  ) {}

  /** The registrations saved, empty when there is no file (or it is unreadable). */
  read(): SavedRegistration[] {
    try {
      return parseSaved(readFileSync(this.path, "utf8"));
    } catch {
      return [];
    }
  }

  /** Something changed: the file is written soon. */
  changed(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => this.flush(), WRITE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes the file now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const tmp = `${this.path}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, path: this.path }, "registrations not saved");
    }
  }

  /** Stops writing (the last state stays in the file). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
