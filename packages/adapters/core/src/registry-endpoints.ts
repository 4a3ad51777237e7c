import { Backoff, type BackoffOptions } from "@iot/config";

/**
 * Which central node an adapter talks to, and how long to wait before the next try (IOT_REGISTRY_URL may list
 * several nodes over one PostgreSQL database). The adapter sticks to the node that answers; when its stream fails it
 * moves to the next address after one short step (so a dead node costs well under a second, not a backoff), and
 * only once every address failed in a row does the growing, jittered backoff apply — per round, not per address.
 * With a single address this is exactly the plain backoff.
 */
export class RegistryEndpoints {
  private index = 0;
  private failures = 0;
  private readonly backoff: Backoff;
  private readonly stepMs: number;
  private readonly random: () => number;

  /** @throws Error when `addresses` is empty. */
  constructor(
    readonly addresses: readonly string[],
    options: BackoffOptions = {},
  ) {
    if (addresses.length === 0) throw new Error("at least one registry address is needed");
    this.backoff = new Backoff(options);
    this.stepMs = options.initialMs ?? 100;
    this.random = options.random ?? Math.random;
  }

  /** Position in `addresses` of the node to use now. */
  get currentIndex(): number {
    return this.index;
  }

  /** The node to use now, `host:port` (or a URL, as given). */
  get current(): string {
    return this.addresses[this.index]!;
  }

  /** The node answered (Hello acknowledged): stay on it, and start the next failure's count afresh. */
  connected(): void {
    this.failures = 0;
    this.backoff.reset();
  }

  /** The stream to the current node failed or could not open: moves to the next node; answers the wait first, ms. */
  failed(): number {
    this.failures++;
    this.index = (this.index + 1) % this.addresses.length;
    if (this.failures % this.addresses.length !== 0)
      return Math.round(this.stepMs / 2 + (this.stepMs / 2) * this.random());
    return this.backoff.next();
  }
}
