import { sql, type Kysely } from "kysely";

/**
 * `lora_multicast` (migration 0033): the LoRaWAN multicast session of a group of class C devices (docs/devices/
 * lorawan.md): its McAddr, McNwkSKey and McAppSKey (32 hex digits), the next McFCntDown, and the data rate and
 * frequency its downlinks use (null: the region's RX2 defaults). One per group; an McAddr belongs to one group. The
 * engines differ only in the type names.
 */
export async function createLoraMulticast(db: Kysely<unknown>, types: { id: string }): Promise<void> {
  await sql`create table lora_multicast (
    group_int_id ${sql.raw(types.id)} primary key,
    tenant_id text not null,
    mc_addr text not null unique,
    nwk_session_key text not null,
    app_session_key text not null,
    fcnt_down ${sql.raw(types.id)} not null,
    data_rate integer,
    frequency ${sql.raw(types.id)},
    create_at ${sql.raw(types.id)} not null,
    update_at ${sql.raw(types.id)}
  )`.execute(db);
}
