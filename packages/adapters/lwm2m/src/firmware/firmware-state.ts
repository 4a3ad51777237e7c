/**
 * Firmware Update object (5) values (OMA-TS-LightweightM2M-V1_0 Appendix E.6): State /5/0/3 and Update Result
 * /5/0/5, and what each failing result means.
 */
export const FW_STATE = { idle: 0, downloading: 1, downloaded: 2, updating: 3 } as const;

/** Update Result codes 0–9. */
const UPDATE_RESULT_TEXT: Record<number, string> = {
  0: "initial value",
  1: "firmware updated successfully",
  2: "not enough flash memory for the new firmware package",
  3: "out of RAM during downloading process",
  4: "connection lost during downloading process",
  5: "integrity check failure for new downloaded package",
  6: "unsupported package type",
  7: "invalid URI",
  8: "firmware update failed",
  9: "unsupported protocol",
};

/** The Update Result that a device failed with, as a message: `update result 5: integrity check failure…`. */
export const resultMessage = (result: number): string =>
  `update result ${result}: ${UPDATE_RESULT_TEXT[result] ?? "unknown"}`;

/** State and Update Result as last heard, and waits on them. */
export class FirmwareStateWatch {
  state: number | undefined;
  result: number | undefined;
  private readonly waiters = new Set<() => void>();

  /** Takes a value of /5/0/3 or /5/0/5 (a read, a notification). */
  take(resource: "state" | "result", value: number): void {
    this[resource] = value;
    for (const w of [...this.waiters]) w();
  }

  /** Something else worth waking the waiter for (the registration ended, a new one came). */
  poke(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with what `check` answers once it answers something other than undefined (checked now and at every
   * change); rejects after `timeoutMs` with `what` in the message.
   */
  until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = check();
      if (now !== undefined) return resolve(now);
      const waiter = () => {
        const v = check();
        if (v === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(v);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timeout: ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
