/** Items past which the consumed front of a Fifo is cut off (when it is also half of the array). */
const COMPACT_AFTER = 1024;

/**
 * A first-in, first-out queue whose `shift` costs the same at any length. `Array.prototype.shift` copies the whole
 * array once it holds more than about 32,000 items (V8 can no longer trim it in place): 50 µs a shift at 50,000
 * items, 140 µs at 200,000 (a scratch loop, session 22), so a queue that grows under a burst slowed down as it grew.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, left in the queue; undefined when empty. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Takes the oldest item; undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > COMPACT_AFTER && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
