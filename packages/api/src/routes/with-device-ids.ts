/** A lookup of the member devices' ids of records, by record id, in one query (`deviceIdsByProduct` and its like). */
export type DeviceIdsOf = (recordIds: number[]) => Promise<Map<number, number[]>>;

/**
 * Products and groups (Form 2) and policies list the ids of their member or bound devices: this reads them for a
 * whole page of records with one query, rather than one per record, and gives each record its `deviceIds` (none: `[]`).
 */
export async function withDeviceIds<T extends { id: number }>(
  items: T[],
  idsOf: DeviceIdsOf,
): Promise<(T & { deviceIds: number[] })[]> {
  const ids = await idsOf(items.map((item) => item.id));
  return items.map((item) => ({ ...item, deviceIds: ids.get(item.id) ?? [] }));
}
