/** Half the 24-bit Observe number space (RFC 7641 §3.4). */
const HALF = 2 ** 23;
/** After this long, any notification counts as newer, whatever its number (RFC 7641 §3.4: 128 s). */
const WRAP_MS = 128_000;

/**
 * Whether a notification numbered `v2` received at `t2` (ms) is newer than the last one taken, `v1` at `t1`
 * (RFC 7641 §3.4): the 24-bit numbers wrap, so a smaller one counts as newer when it is more than 2^23 behind, and
 * after 128 s without a notification any number does. Equal numbers are a repeat, not newer.
 */
export function isNewerNotification(v1: number, t1: number, v2: number, t2: number): boolean {
  return (v1 < v2 && v2 - v1 < HALF) || (v1 > v2 && v1 - v2 > HALF) || t2 > t1 + WRAP_MS;
}
