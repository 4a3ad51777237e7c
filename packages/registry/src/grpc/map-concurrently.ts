/**
 * Maps `items` through `f` with at most `limit` calls running at once; the results keep the items' order, and the
 * first rejection rejects the whole (the calls already started still finish).
 *
 * Why not `Promise.all(items.map(f))`: on SQLite every query waits for kysely's single-connection mutex, which wakes
 * all its waiters at each release; a batch of hundreds of device checks, each a few queries, then spent more time
 * waking waiters than querying. A few at a time keep the waiters few, and still fill a PostgreSQL pool.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  f: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
