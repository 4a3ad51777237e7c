/**
 * Test support (not a test file, exported as `@iot/registry/testing`): data point and data stream rows inserted
 * directly, so the tests of what reads them (metrics, resources, templates, device data, the REST API) do not depend
 * on the data point API they are not testing.
 */
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";

/** Who a row belongs to. */
interface RowOwner {
  tenantId: string;
  userIntId: number;
}

/** Inserts a data point row of a product (default: numeric, reported and commanded) and answers it. */
export function insertDataPointRow(
  db: Kysely<Database>,
  who: RowOwner,
  productIntId: number,
  dataPointId: string,
  over: { pointDataType?: number; dataTransType?: number; enum?: string | null; createAt?: number } = {},
) {
  return db
    .insertInto("dataPoints")
    .values({
      tenantId: who.tenantId,
      userIntId: who.userIntId,
      productIntId,
      dataPointId,
      dataPointName: `Point ${dataPointId}`,
      pointDataType: over.pointDataType ?? 1,
      dataTransType: over.dataTransType ?? 3,
      unitName: null,
      unitSymbol: null,
      upperLimit: null,
      lowerLimit: null,
      dataStep: null,
      binarySize: null,
      faultValue: null,
      isDiscard: null,
      isLocationType: null,
      locationType: null,
      enum: over.enum ?? null,
      registerAddr: null,
      detail: null,
      createAt: over.createAt ?? 0,
      updateAt: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts a data stream row of a product on `topic` and answers it. */
export function insertDataStreamRow(
  db: Kysely<Database>,
  who: RowOwner,
  productIntId: number,
  topic: string,
  createAt = 0,
) {
  return db
    .insertInto("dataStreams")
    .values({
      tenantId: who.tenantId,
      userIntId: who.userIntId,
      productIntId,
      streamName: `Stream ${topic}`,
      streamType: 1,
      streamDataType: 1,
      topic,
      detail: null,
      createAt,
      updateAt: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
