import { sql, type Kysely } from "kysely";

/**
 * `firmwares` (migration 0032): firmware packages operators upload for a product's devices (the LwM2M firmware
 * update, docs/devices/lwm2m.md). The bytes are a file in the data folder named by `firmware_id`; the row holds what
 * describes and checks them. One name and version per product. The engines differ only in the type names.
 */
export async function createFirmwares(db: Kysely<unknown>, types: { key: string; id: string }): Promise<void> {
  await sql`create table firmwares (
    id ${sql.raw(types.key)},
    tenant_id text not null,
    firmware_id text not null unique,
    firmware_name text not null,
    version text not null,
    product_int_id ${sql.raw(types.id)} not null,
    size ${sql.raw(types.id)} not null,
    sha256 text not null,
    user_int_id ${sql.raw(types.id)},
    create_at ${sql.raw(types.id)} not null,
    unique (product_int_id, firmware_name, version)
  )`.execute(db);
  await sql`create index firmwares_tenant on firmwares (tenant_id, id)`.execute(db);
}
