import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A migration adding a trigram index of one text column of `devices` (0022 names, 0023 ids): an FTS5 table with
 * external content (the texts stay in `devices`), triggers on insert, update of the column and delete keeping it in
 * step, and the texts already there indexed. `updateTrigger` is the update trigger's name, as databases know it.
 */
export function deviceTextTrigrams(fts: string, column: string, updateTrigger: string): Migration {
  const [table, col, update] = [sql.table(fts), sql.ref(column), sql.id(updateTrigger)];
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of [
        sql`create virtual table ${table} using fts5(${col}, content='devices', content_rowid='id', tokenize='trigram')`,
        sql`create trigger ${sql.id(`${fts}_insert`)} after insert on devices begin
              insert into ${table} (rowid, ${col}) values (new.id, new.${col});
            end`,
        sql`create trigger ${sql.id(`${fts}_delete`)} after delete on devices begin
              insert into ${table} (${table}, rowid, ${col}) values ('delete', old.id, old.${col});
            end`,
        sql`create trigger ${update} after update of ${col} on devices begin
              insert into ${table} (${table}, rowid, ${col}) values ('delete', old.id, old.${col});
              insert into ${table} (rowid, ${col}) values (new.id, new.${col});
            end`,
        sql`insert into ${table} (${table}) values ('rebuild')`,
      ])
        await statement.execute(db);
    },
    async down(db: Kysely<unknown>) {
      for (const statement of [
        sql`drop trigger ${update}`,
        sql`drop trigger ${sql.id(`${fts}_delete`)}`,
        sql`drop trigger ${sql.id(`${fts}_insert`)}`,
        sql`drop table ${table}`,
      ])
        await statement.execute(db);
    },
  };
}
