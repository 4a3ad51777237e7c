/**
 * Test support (not a test file): two tenants with products, and helpers that insert data points and streams as
 * rows, so the tests of metrics, product resources and app templates do not depend on the data point API.
 */
import { expect } from "vitest";
import { createProduct, type Caller, type Product } from "@iot/registry";
import { insertDataPointRow, insertDataStreamRow } from "@iot/registry/testing";
import { twoTenants } from "./test-tenants.js";

/** A record as an answer holds it: its id and other members. */
export type Rec = Record<string, unknown> & { id: number };

/** An answer of `TestApp.call`, read as the error answer it should be. */
export type Reply = {
  status: number;
  body: { errorCode: string; errors: Record<string, string> } & Record<string, unknown>;
};

/** A date as the API writes it. */
export const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

/** Expects 400 FORM_INVALID naming exactly `errors`. */
export function formInvalid(r: Reply, errors: Record<string, unknown>) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.errorCode).toBe("FORM_INVALID");
  expect(r.body.errors).toEqual(errors);
}

/**
 * Two tenants in `form` (see `twoTenants`), the first tenant's products `meter` and `valve` and eve's `eveProduct`
 * (all MQTT), and helpers that insert a product's data points and streams and create records through the API.
 */
export async function dataModelFixture(form: "1" | "2") {
  const tenants = await twoTenants(form);
  const { t, token, admin, eve } = tenants;
  const meter = await createProduct(t.store.db, admin, { productName: "Meter", cloudProtocol: 1 });
  const valve = await createProduct(t.store.db, admin, { productName: "Valve", cloudProtocol: 1 });
  const eveProduct = await createProduct(t.store.db, eve, { productName: "Eve's", cloudProtocol: 1 });

  /** Inserts a data point row directly (the data point API is not under test here); default: numeric. */
  const point = async (
    p: Product,
    dataPointId: string,
    over: { pointDataType?: number; enum?: string } = {},
    who: Caller = admin,
  ) => (await insertDataPointRow(t.store.db, who, p.id, dataPointId, { ...over, createAt: Date.now() })).id;

  /** Inserts a data stream row on `topic` directly. */
  const stream = async (p: Product, topic: string, who: Caller = admin) =>
    (await insertDataStreamRow(t.store.db, who, p.id, topic, Date.now())).id;

  /** POSTs `body` to `path` as `as` (the admin unless told), expects 201 and answers the record created. */
  const post = async (path: string, body: Record<string, unknown>, as = token) => {
    const r = await t.call("POST", path, body, as);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Rec;
  };

  return { ...tenants, meter, valve, eveProduct, point, stream, post };
}

/** What `dataModelFixture` answers. */
export type DataModelFixture = Awaited<ReturnType<typeof dataModelFixture>>;
