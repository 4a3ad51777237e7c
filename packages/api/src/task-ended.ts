/** Test support (not a test file): waiting for a background task of the API to end. */
import { vi } from "vitest";

/** What a task status record holds that `taskEnded` reads: status 3 (success) and 4 (failed) are the ends. */
interface TaskStatus {
  status: number;
  progress?: number;
}

/** How long a task may take to end in a test: below the tests' 20 s timeout, so the last status read is reported. */
const TASK_TIMEOUT_MS = 15_000;

/**
 * Reads a task's status with `readStatus` until the task has ended, and answers that last record; `onRead` sees every
 * record read on the way (progress tests sample it). Reads follow one another `intervalMs` apart and never overlap. A
 * read that throws (an assertion about the record) fails at once; a task still running after 15 s fails with its
 * last status.
 */
export async function taskEnded<S extends TaskStatus>(
  readStatus: () => Promise<S>,
  { intervalMs = 20, onRead }: { intervalMs?: number; onRead?: (status: S) => void } = {},
): Promise<S> {
  let last = undefined as S | undefined;
  try {
    return await vi.waitUntil(
      async () => {
        last = undefined;
        last = await readStatus();
        onRead?.(last);
        return last.status >= 3 ? last : undefined;
      },
      { timeout: TASK_TIMEOUT_MS, interval: intervalMs },
    );
  } catch (e) {
    if (last === undefined || last.status >= 3) throw e;
    throw new Error(
      `the task has not ended in ${TASK_TIMEOUT_MS} ms: status ${last.status}, progress ${last.progress}`,
      {
        cause: e,
      },
    );
  }
}
