import type { Clock } from "./clock.js";

/** Time that moves only when a test says so. */
export class FakeClock implements Clock {
  private t = 0;
  private timers: { at: number; fn: () => void }[] = [];
  now = () => this.t;
  setTimer(ms: number, fn: () => void) {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => void (this.timers = this.timers.filter((x) => x !== timer));
  }
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}
