/** Test support (not a test file): the data point and stream tests' two tenants, products and API helpers. */
import { expect } from "vitest";
import { createProduct, type Caller } from "@iot/registry";
import type { Rec } from "./data-model-fixtures.js";
import { twoTenants } from "./test-tenants.js";

/**
 * Two tenants in `form` (see `twoTenants`) and helpers that create a product in the store and data points through
 * the API, as the data point and stream tests need them.
 */
export async function dataPointsFixture(form: "1" | "2") {
  const tenants = await twoTenants(form);
  const { t, token, admin } = tenants;
  /** Creates a product of `who` (the admin unless told), MQTT unless told. */
  const product = (productName: string, cloudProtocol = 1, who?: Caller) =>
    createProduct(t.store.db, who ?? admin, { productName, cloudProtocol });
  /** POSTs `body` to `path` as `as` (the admin unless told). */
  const post = async (path: string, body: unknown, as = token) => t.call("POST", path, body, as);
  /** Creates a numeric data point of a product through the API, expecting 201; `extra` adds or overrides members. */
  const point = async (productIntID: number, dataPointID: string, extra: Record<string, unknown> = {}, as = token) => {
    const r = await post(
      "/data_points",
      {
        productIntID: String(productIntID),
        dataPointName: `Point ${dataPointID}`,
        dataPointID,
        pointDataType: 1,
        dataTransType: 3,
        ...extra,
      },
      as,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Rec;
  };
  return { ...tenants, product, post, point };
}

/** What `dataPointsFixture` answers. */
export type DataPointsFixture = Awaited<ReturnType<typeof dataPointsFixture>>;

/** Expects 400 FORM_INVALID naming exactly `fields`, in any order. */
export function formInvalid(
  r: { status: number; body: { errorCode: string; errors: Record<string, string> } },
  ...fields: string[]
) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.errorCode).toBe("FORM_INVALID");
  expect(Object.keys(r.body.errors).sort()).toEqual([...fields].sort());
}
