/** Longest IN list of one statement: far below either engine's bound-parameter limit. */
const MAX_IN_VALUES = 512;
/** Shortest IN list: smaller lists are padded to it, so lone lookups share one SQL text too. */
const MIN_IN_VALUES = 8;

/**
 * Runs `query` over `values` in chunks whose IN lists have power-of-two lengths from 8 to 512, the last value repeated
 * to fill a chunk (a repeated value in IN changes nothing), and answers all the rows. Each list length is its own SQL
 * text, and the SQLite connection keeps a prepared statement per text (see cachingStatements): with a few lengths
 * only, batches of any size reuse them instead of preparing (and crowding out) a new statement per batch size.
 * Values are de-duplicated first; none asks nothing.
 */
export async function queryIn<V, R>(values: Iterable<V>, query: (chunk: V[]) => Promise<R[]>): Promise<R[]> {
  const all = [...new Set(values)];
  const rows: R[] = [];
  for (let at = 0; at < all.length; at += MAX_IN_VALUES) {
    const chunk = all.slice(at, at + MAX_IN_VALUES);
    let size = MIN_IN_VALUES;
    while (size < chunk.length) size *= 2;
    const last = chunk[chunk.length - 1]!;
    while (chunk.length < size) chunk.push(last);
    for (const row of await query(chunk)) rows.push(row);
  }
  return rows;
}

/**
 * `queryIn` for rows about each value (a device's policies, …): the rows by their `deviceIntId`, each as `value` makes
 * it, in the rows' order.
 */
export async function queryInGrouped<R extends { deviceIntId: number }, T>(
  deviceIntIds: Iterable<number>,
  query: (chunk: number[]) => Promise<R[]>,
  value: (row: R) => T,
): Promise<Map<number, T[]>> {
  const out = new Map<number, T[]>();
  for (const row of await queryIn(deviceIntIds, query)) {
    const list = out.get(row.deviceIntId);
    if (list) list.push(value(row));
    else out.set(row.deviceIntId, [value(row)]);
  }
  return out;
}
