import { z } from "zod";
import type { DataPoint } from "@iot/registry";
import type { View } from "../view.js";
import { f, parseJson, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const base = z.object({
  id: f.int,
  dataPointID: f.str,
  dataPointName: f.str,
  productID: f.str,
  pointDataType: f.int,
  dataTransType: f.int,
  unitName: f.strN,
  unitSymbol: f.strN,
  upperLimit: f.numN,
  lowerLimit: f.numN,
  dataStep: f.numN,
  binarySize: f.intN,
  faultValue: f.strN,
  isDiscard: f.intN,
  isLocationType: f.intN,
  locationType: f.intN,
  enum: f.json,
  registerAddr: f.strN,
  detail: f.strN,
});
const dates = { createAt: f.date, updateAt: f.date };
const listed = base.extend({ productName: f.str, pointDataTypeLabel: f.label, dataTransTypeLabel: f.label, ...dates });

/** Data point records by shape, the same in both forms. */
export const dataPointRecords = {
  write: base.extend({ userIntID: f.int, tenantID: f.str, ...dates }),
  list: listed,
  detail: listed.extend({ createUser: f.strN, userIntID: f.int, tenantID: f.str }),
} satisfies Record<Shape, z.ZodType>;

/**
 * Data point record, the same in Form 1 and Form 2 (labels follow the
 * caller's language). Lists add the product's name and the labels; details
 * add the creator and the tenant; create/edit answers carry the stored
 * record without labels and joined names.
 */
export function dataPoint<S extends Shape>(p: DataPoint, shape: S, view: View): ShapeOf<typeof dataPointRecords, S>;
export function dataPoint(p: DataPoint, shape: Shape, view: View): RecordOf<typeof dataPointRecords> {
  const base = {
    id: p.id,
    dataPointID: p.dataPointId,
    dataPointName: p.dataPointName,
    productID: p.productId,
    pointDataType: p.pointDataType,
    dataTransType: p.dataTransType,
    unitName: p.unitName,
    unitSymbol: p.unitSymbol,
    upperLimit: p.upperLimit,
    lowerLimit: p.lowerLimit,
    dataStep: p.dataStep,
    binarySize: p.binarySize,
    faultValue: p.faultValue,
    isDiscard: p.isDiscard,
    isLocationType: p.isLocationType,
    locationType: p.locationType,
    enum: parseJson(p.enum),
    registerAddr: p.registerAddr,
    detail: p.detail,
  };
  const dates = { createAt: formatDate(p.createAt), updateAt: formatDate(p.updateAt) };
  if (shape === "write") return { ...base, userIntID: p.userIntId, tenantID: p.tenantId, ...dates };
  const listed = {
    ...base,
    productName: p.productName,
    pointDataTypeLabel: label("pointDataType", p.pointDataType, view.lang),
    dataTransTypeLabel: label("dataTransType", p.dataTransType, view.lang),
    ...dates,
  };
  if (shape === "list") return listed;
  return { ...listed, createUser: p.createUser, userIntID: p.userIntId, tenantID: p.tenantId };
}
