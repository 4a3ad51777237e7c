import type { ExpressionBuilder, Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { STREAM_TYPE } from "../pipeline/decode/types.js";
import type { CommandPoint, CommandStream } from "./command-payload.js";
import { MODBUS_PROTOCOL, modbusCommandStream } from "../modbus/modbus-streams.js";

/**
 * The command streams a device of this product is checked against: a Modbus product's one implicit stream (its
 * points with registers) for its slaves, else the product's stored streams of the device's kind. A product read with
 * `hasCommandStreams` saying it has none of either kind needs no further query.
 */
export async function commandStreamsOf(
  db: Kysely<Database>,
  product: { productIntId: number; cloudProtocol: number; hasCommandStreams?: unknown },
  isGateway: boolean,
): Promise<CommandStream[]> {
  if (product.cloudProtocol === MODBUS_PROTOCOL && !isGateway)
    return [await modbusCommandStream(db, product.productIntId)];
  if (product.hasCommandStreams !== undefined && !product.hasCommandStreams) return [];
  return loadCommandStreams(db, product.productIntId, commandStreamType(isGateway));
}

/**
 * Selects `hasCommandStreams` (SQLite 0/1, PostgreSQL false/true): whether the product `p` has any command stream,
 * of devices or of gateways, so a command to a product without any (the common case) costs no query for its streams.
 */
export const hasCommandStreams = (eb: ExpressionBuilder<Database & { p: Database["products"] }, "p">) =>
  eb
    .exists(
      eb
        .selectFrom("dataStreams as s")
        .select("s.id")
        .whereRef("s.productIntId", "=", "p.id")
        .where("s.streamType", "in", [STREAM_TYPE.deviceCommand, STREAM_TYPE.gatewayCommand]),
    )
    .as("hasCommandStreams");

/**
 * The command streams a device's commands are checked against: 4 (gateway command) for a gateway, 2 (device
 * command) for any other device, as uplinks match report streams 3 and 1.
 */
const commandStreamType = (isGateway: boolean): number =>
  isGateway ? STREAM_TYPE.gatewayCommand : STREAM_TYPE.deviceCommand;

/**
 * The product's command streams of `streamType`, oldest first, each with its points in position order. Read at
 * each command (two queries), so an edit of a point or stream applies to the next command.
 */
async function loadCommandStreams(
  db: Kysely<Database>,
  productIntId: number,
  streamType: number,
): Promise<CommandStream[]> {
  const streams = await db
    .selectFrom("dataStreams")
    .select(["id", "streamDataType", "topic"])
    .where("productIntId", "=", productIntId)
    .where("streamType", "=", streamType)
    .orderBy("id")
    .execute();
  if (streams.length === 0) return [];
  const points = await db
    .selectFrom("dataStreamPoints as l")
    .innerJoin("dataPoints as p", "p.id", "l.dataPointIntId")
    .select([
      "l.dataStreamIntId",
      "p.id",
      "p.dataPointId",
      "p.dataPointName",
      "p.pointDataType",
      "p.dataTransType",
      "p.binarySize",
      "p.enum",
      "p.upperLimit",
      "p.lowerLimit",
      "p.faultValue",
      "p.isDiscard",
      "p.unitSymbol",
    ])
    .where(
      "l.dataStreamIntId",
      "in",
      streams.map((s) => s.id),
    )
    .orderBy("l.position")
    .execute();
  return streams.map((s) => ({
    ...s,
    points: points
      .filter((p) => p.dataStreamIntId === s.id)
      .map(({ dataStreamIntId: _stream, ...p }): CommandPoint => p),
  }));
}
