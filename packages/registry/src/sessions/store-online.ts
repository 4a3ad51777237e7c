import { CompiledQuery, type Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Engine } from "../store/store.js";
import { engineOf } from "../store/multi-row-insert.js";
import { queryIn } from "../store/query-in.js";

/** What a live device's row stores of its session. */
export interface OnlineState {
  readonly id: number;
  /** 1 online, 2 sleeping. */
  readonly deviceStatus: number;
  readonly clientIp: string | null;
  readonly keepAlive: number | null;
  /** Epoch ms the session opened. */
  readonly connectedAt: number;
}

/** The UPDATE's SQL text per engine and row count, made once. */
const TEXTS = new Map<string, string>();

/** Columns of each VALUES row, in order; PostgreSQL gets their types on the first row (the others follow it). */
const COLUMNS = ["id", "device_status", "client_ip", "keep_alive", "connected_at"];
const PG_TYPES = ["bigint", "integer", "text", "integer", "bigint"];

/**
 * `update devices … from (values …)`: one statement for up to 512 devices, which both engines take (SQLite since
 * 3.33). VALUES columns are `column1`… on both. Rows come in the IN-list lengths of queryIn (the last one repeated:
 * the same values twice change nothing), so a few texts serve every batch size, each a statement SQLite keeps prepared.
 */
function onlineText(engine: Engine, rows: number): string {
  const key = `${engine} ${rows}`;
  let text = TEXTS.get(key);
  if (text === undefined) {
    const mark = (i: number) => (engine === "postgres" ? `$${i + 1}` : "?");
    const row = (r: number) =>
      `(${COLUMNS.map((_, c) => mark(r * COLUMNS.length + c) + (engine === "postgres" && r === 0 ? `::${PG_TYPES[c]}` : "")).join(", ")})`;
    text =
      `update devices set ${COLUMNS.slice(1)
        .map((c, i) => `${c} = v.column${i + 2}`)
        .join(", ")} ` +
      `from (values ${Array.from({ length: rows }, (_, r) => row(r)).join(", ")}) as v where devices.id = v.column1`;
    TEXTS.set(key, text);
  }
  return text;
}

/**
 * Stores each device of `states` online (or sleeping) with its session's address, keepalive and opening time: a
 * statement per 512 devices instead of one per device (a connect storm's ConnectivityWriter batch holds up to 500).
 */
export async function storeOnline(db: Kysely<Database>, states: readonly OnlineState[]): Promise<void> {
  const byId = new Map(states.map((s) => [s.id, s]));
  const engine = engineOf(db);
  await queryIn(byId.keys(), async (ids) => {
    const values: unknown[] = [];
    for (const id of ids) {
      const s = byId.get(id)!;
      values.push(id, s.deviceStatus, s.clientIp, s.keepAlive, s.connectedAt);
    }
    await db.executeQuery(CompiledQuery.raw(onlineText(engine, ids.length), values));
    return [];
  });
}
