import { ok, refuse, type Result } from "./result.js";

/**
 * An LwM2M path `/{Object ID}/{Object Instance}/{Resource ID}/{Resource Instance}`: an Object, optionally an Object
 * Instance in it, a Resource in that, and a Resource Instance of a multiple Resource. Each id is 0..65535 (16-bit
 * in TLV, OMA-TS-LightweightM2M-V1_0 §6.4.3); 65535 itself is reserved by the specification but still parses.
 */
export interface ObjectPath {
  readonly objectId: number;
  readonly instanceId?: number;
  readonly resourceId?: number;
  readonly resourceInstanceId?: number;
}

/** How deep a path reaches: 1 Object, 2 Object Instance, 3 Resource, 4 Resource Instance. */
export type PathDepth = 1 | 2 | 3 | 4;

/** The largest id of each level: identifiers are 16-bit unsigned in TLV (§6.4.3) and CoAP Uri-Path segments. */
export const MAX_PATH_ID = 65535;

const SEGMENT = /^(0|[1-9]\d{0,4})$/;
const LEVELS = ["object", "instance", "resource", "resource instance"] as const;

/**
 * Parses `/3`, `/3/0`, `/3/0/0` or `/3/0/7/1`. The leading `/` may be left out (`3303/0/5700`, as data point ids
 * name paths); nothing else is accepted: no empty or trailing segment, no sign, no leading zero (so one path has one
 * spelling), no id above 65535, no fifth level, and not the root `/` alone.
 */
export function parseObjectPath(text: string): Result<ObjectPath> {
  const body = text.startsWith("/") ? text.slice(1) : text;
  if (body === "") return refuse(`path "${text}" names no object`);
  const segments = body.split("/");
  if (segments.length > 4) return refuse(`path "${text}" has ${segments.length} levels: at most 4 (resource instance)`);
  const ids: number[] = [];
  for (const [i, segment] of segments.entries()) {
    if (segment === "") return refuse(`path "${text}" has an empty ${LEVELS[i]} segment`);
    if (!SEGMENT.test(segment)) return refuse(`path "${text}": ${LEVELS[i]} id "${segment}" is not a plain decimal`);
    const id = Number(segment);
    if (id > MAX_PATH_ID) return refuse(`path "${text}": ${LEVELS[i]} id ${id} is above ${MAX_PATH_ID}`);
    ids.push(id);
  }
  return ok(fromIds(ids));
}

/** The canonical text of a path, with its leading `/` (`{3, 0, 7, 1}` → `/3/0/7/1`). */
export function formatObjectPath(path: ObjectPath): string {
  return "/" + pathIds(path).join("/");
}

/** The ids of a path from the object down, as many as it has. */
export function pathIds(path: ObjectPath): number[] {
  const ids = [path.objectId];
  if (path.instanceId === undefined) return ids;
  ids.push(path.instanceId);
  if (path.resourceId === undefined) return ids;
  ids.push(path.resourceId);
  if (path.resourceInstanceId !== undefined) ids.push(path.resourceInstanceId);
  return ids;
}

/** A path from 1 to 4 ids, object first (the caller guarantees the count and the ranges). */
export function fromIds(ids: readonly number[]): ObjectPath {
  const [objectId, instanceId, resourceId, resourceInstanceId] = ids;
  return {
    objectId: objectId!,
    ...(instanceId === undefined ? {} : { instanceId }),
    ...(resourceId === undefined ? {} : { resourceId }),
    ...(resourceInstanceId === undefined ? {} : { resourceInstanceId }),
  };
}

/** How many levels a path has. */
export function pathDepth(path: ObjectPath): PathDepth {
  return pathIds(path).length as PathDepth;
}

/** Whether `inner` is `outer` or lies below it (`/3/0/7/1` is within `/3/0`, `/3/1` is not within `/3/0`). */
export function isWithin(inner: ObjectPath, outer: ObjectPath): boolean {
  const a = pathIds(inner);
  const b = pathIds(outer);
  return a.length >= b.length && b.every((id, i) => a[i] === id);
}

/** The path one level below `path` (`/3/0` + 7 → `/3/0/7`); undefined below a resource instance. */
export function childPath(path: ObjectPath, id: number): ObjectPath | undefined {
  const ids = pathIds(path);
  return ids.length >= 4 ? undefined : fromIds([...ids, id]);
}
