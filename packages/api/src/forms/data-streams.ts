import { z } from "zod";
import type { DataStream } from "@iot/registry";
import type { View } from "../view.js";
import { f, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const write = z.object({
  id: f.int,
  productID: f.str,
  streamName: f.str,
  streamType: f.int,
  streamDataType: f.int,
  topic: f.str,
  dataPoints: z.array(f.int),
  detail: f.strN,
  userIntID: f.int,
  createAt: f.date,
  updateAt: f.date,
});

/** Data stream records by shape, the same in both forms. */
export const dataStreamRecords = {
  list: z.object({
    id: f.int,
    productName: f.str,
    streamDataType: f.int,
    streamDataTypeLabel: f.label,
    streamName: f.str,
    streamType: f.int,
    streamTypeLabel: f.label,
    topic: f.str,
  }),
  write,
  detail: write.extend({
    productName: f.str,
    streamTypeLabel: f.label,
    streamDataTypeLabel: f.label,
    dataPointNames: z.array(f.str),
    createUser: f.strN,
  }),
} satisfies Record<Shape, z.ZodType>;

/**
 * Data stream record, the same in Form 1 and Form 2 (labels follow the
 * caller's language). Lists carry exactly the spec's list fields; details
 * add the product, the data points (ids and names, in order), the remark, the
 * creator and the dates; create/edit answers drop labels and joined names.
 */
export function dataStream<S extends Shape>(s: DataStream, shape: S, view: View): ShapeOf<typeof dataStreamRecords, S>;
export function dataStream(s: DataStream, shape: Shape, view: View): RecordOf<typeof dataStreamRecords> {
  const labels = {
    streamTypeLabel: label("streamType", s.streamType, view.lang),
    streamDataTypeLabel: label("streamDataType", s.streamDataType, view.lang),
  };
  if (shape === "list") {
    return {
      id: s.id,
      productName: s.productName,
      streamDataType: s.streamDataType,
      streamDataTypeLabel: labels.streamDataTypeLabel,
      streamName: s.streamName,
      streamType: s.streamType,
      streamTypeLabel: labels.streamTypeLabel,
      topic: s.topic,
    };
  }
  const base = {
    id: s.id,
    productID: s.productId,
    streamName: s.streamName,
    streamType: s.streamType,
    streamDataType: s.streamDataType,
    topic: s.topic,
    dataPoints: s.dataPoints,
    detail: s.detail,
    userIntID: s.userIntId,
    createAt: formatDate(s.createAt),
    updateAt: formatDate(s.updateAt),
  };
  if (shape === "write") return base;
  return { ...base, productName: s.productName, ...labels, dataPointNames: s.dataPointNames, createUser: s.createUser };
}
