import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { MODBUS_PROTOCOL, modbusReportStream } from "../modbus/modbus-streams.js";
import { LWM2M_PROTOCOL, lwm2mReportStream } from "../lwm2m/lwm2m-streams.js";

/** A data point as the pipeline decodes and checks it. */
export interface PipelinePoint {
  readonly id: number;
  readonly dataPointId: string;
  readonly dataPointName: string;
  readonly pointDataType: number;
  readonly binarySize: number | null;
  readonly enum: string | null;
  readonly upperLimit: number | null;
  readonly lowerLimit: number | null;
  readonly faultValue: string | null;
  readonly isDiscard: number | null;
  readonly unitSymbol: string | null;
  /** 1 longitude, 2 latitude (3 altitude is not stored on the device) when isLocationType is 1; else null. */
  readonly locationType: number | null;
}

/** A report stream (types 1 and 3) with its points in position order. */
interface PipelineStream {
  readonly id: number;
  readonly streamType: number;
  readonly streamDataType: number;
  readonly topic: string;
  readonly points: readonly PipelinePoint[];
}

/** What the pipeline needs of one product. */
export interface ProductSpec {
  readonly streams: readonly PipelineStream[];
  /** The points of its streams by id, made once per spec rather than per uplink. */
  readonly points: ReadonlyMap<number, PipelinePoint>;
  /** Formula metrics (metricType 1) of the product's points. */
  readonly formulas: readonly { id: number; dataPointIntId: number; expressions: string }[];
}

/**
 * The streams a product has without defining them: a Modbus product's points with registers on `up/modbus`, an
 * LwM2M product's points on its answers and notifications (see modbus-streams.ts and lwm2m-streams.ts).
 */
function implicitStreams(
  cloudProtocol: number | undefined,
  points: readonly { id: number; registerAddr: string | null }[],
  byId: ReadonlyMap<number, PipelinePoint>,
): PipelineStream[] {
  if (cloudProtocol === MODBUS_PROTOCOL)
    return [modbusReportStream(points.filter((p) => p.registerAddr !== null).map((p) => byId.get(p.id)!))];
  if (cloudProtocol === LWM2M_PROTOCOL) return [lwm2mReportStream([...byId.values()])];
  return [];
}

/** How long a product's spec is reused before it is read again, ms: an edit applies within this. */
const SPEC_TTL_MS = 2_000;

/**
 * The products' streams, points and formula metrics, read once per product every SPEC_TTL_MS at most, so a burst
 * of uplinks costs three queries per product instead of three per uplink.
 */
export class ProductSpecs {
  private readonly cache = new Map<number, { spec: Promise<ProductSpec>; readAt: number }>();

  /** The spec of the product, fresh within SPEC_TTL_MS; read through `db` (the caller's transaction) when stale. */
  of(db: Kysely<Database>, productIntId: number, now = Date.now()): Promise<ProductSpec> {
    const hit = this.cache.get(productIntId);
    if (hit && now - hit.readAt < SPEC_TTL_MS) return hit.spec;
    const spec = this.read(db, productIntId);
    this.cache.set(productIntId, { spec, readAt: now });
    spec.catch(() => this.cache.delete(productIntId));
    return spec;
  }

  private async read(db: Kysely<Database>, productIntId: number): Promise<ProductSpec> {
    const [product, streams, links, points, formulas] = await Promise.all([
      db.selectFrom("products").select("cloudProtocol").where("id", "=", productIntId).executeTakeFirst(),
      db
        .selectFrom("dataStreams")
        .select(["id", "streamType", "streamDataType", "topic"])
        .where("productIntId", "=", productIntId)
        .where("streamType", "in", [1, 3])
        .orderBy("id")
        .execute(),
      db
        .selectFrom("dataStreamPoints as l")
        .innerJoin("dataStreams as s", "s.id", "l.dataStreamIntId")
        .select(["l.dataStreamIntId", "l.dataPointIntId", "l.position"])
        .where("s.productIntId", "=", productIntId)
        .orderBy("l.position")
        .execute(),
      db.selectFrom("dataPoints").selectAll().where("productIntId", "=", productIntId).execute(),
      db
        .selectFrom("metrics")
        .select(["id", "dataPointIntId", "expressions"])
        .where("productIntId", "=", productIntId)
        .where("metricType", "=", 1)
        .where("expressions", "is not", null)
        .execute(),
    ]);
    const byId = new Map(
      points.map((p): [number, PipelinePoint] => [
        p.id,
        {
          id: p.id,
          dataPointId: p.dataPointId,
          dataPointName: p.dataPointName,
          pointDataType: p.pointDataType,
          binarySize: p.binarySize,
          enum: p.enum,
          upperLimit: p.upperLimit,
          lowerLimit: p.lowerLimit,
          faultValue: p.faultValue,
          isDiscard: p.isDiscard,
          unitSymbol: p.unitSymbol,
          locationType: p.isLocationType === 1 ? p.locationType : null,
        },
      ]),
    );
    const stored = streams.map((s) => ({
      ...s,
      points: links.filter((l) => l.dataStreamIntId === s.id).flatMap((l) => byId.get(l.dataPointIntId) ?? []),
    }));
    const all = [...stored, ...implicitStreams(product?.cloudProtocol, points, byId)];
    return {
      streams: all,
      points: new Map(all.flatMap((s) => s.points.map((p) => [p.id, p]))),
      formulas: formulas.map((f) => ({ id: f.id, dataPointIntId: f.dataPointIntId, expressions: f.expressions! })),
    };
  }
}
