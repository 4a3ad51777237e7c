import { sql, type Kysely, type Migration } from "kysely";

/**
 * 0025: `metrics_product`. The data pipeline reads a product's formula metrics (`where product_int_id = ?`) every
 * two seconds while the product's devices send, and without an index each read scanned every metric of the service.
 */
export const metricsProduct: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index metrics_product on metrics (product_int_id)`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index metrics_product`.execute(db);
  },
};
