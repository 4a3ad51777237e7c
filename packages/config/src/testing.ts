/**
 * Test support shared by every package's tests and the end-to-end tests (`@iot/config/testing`); no production code
 * imports it.
 */

/**
 * Lets `ms` milliseconds of real time pass on purpose: the behaviour under test needs the time to pass (nothing may
 * arrive within it, a memory or a bucket must lapse). Never a way to wait for something to happen: wait on that
 * event or condition instead (`vi.waitFor`, `expect.poll`, an event's promise). `why` names what the time is for, so
 * the wait reads as what it is.
 */
export function quietFor(ms: number, why: string): Promise<void> {
  if (!why) throw new Error("quietFor: say why the time must pass");
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves on the next turn of the event loop, once every promise callback queued before has run: in-memory links
 * and fakes (no sockets, no timers) finish what a call set off within them, so this waits for exactly that.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
