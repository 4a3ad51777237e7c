/** A small seeded generator (mulberry32), so a failing case can be replayed. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The datagram with a few bytes changed, cut or extended. */
export function mutate(d: Buffer, next: () => number): Buffer {
  const out = Buffer.from(d);
  for (let i = 0, n = 1 + Math.floor(next() * 4); i < n; i++)
    out[Math.floor(next() * out.length)] = Math.floor(next() * 256);
  const r = next();
  if (r < 0.2) return out.subarray(0, Math.floor(next() * out.length));
  if (r < 0.3) return Buffer.concat([out, Buffer.alloc(Math.floor(next() * 20), 0xff)]);
  return out;
}
