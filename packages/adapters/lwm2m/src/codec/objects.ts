import { readFileSync } from "node:fs";
import type { ObjectPath } from "./object-path.js";
import type { ResourceType } from "./typed-value.js";

/**
 * The object models the codecs need to type values that arrive untyped (TLV bytes, plain text, CBOR): the LwM2M core
 * objects 0–7 as the OMA LwM2M registry defines them (1.0 resources plus the 1.1 additions of the Server object),
 * and the IPSO objects 3200–3203 and 3300–3350 by name, whose resources are the registry's reusable resources
 * (5500–5999), which mean the same in every object. Anything else (vendor objects, resources not listed) has no
 * type: the codecs then keep TLV and opaque values as hex strings and plain text as its text, and SenML and OMA JSON
 * values as the format typed them. The Security object (0) is listed by name only: a server never reads it.
 * The definitions are data files (`packages/adapters/lwm2m/objects/`), so more objects are added without code.
 */

/** Operations a resource allows: R read, W write, RW both, E execute. */
export type Operations = "R" | "W" | "RW" | "E";

/** One resource definition. */
export interface ResourceModel {
  readonly id: number;
  readonly name: string;
  readonly type: ResourceType;
  readonly operations: Operations;
  /** Whether the resource has instances (`/3/0/7/0`, `/3/0/7/1`). */
  readonly multiple: boolean;
}

/** One object definition. */
export interface ObjectModel {
  readonly id: number;
  readonly name: string;
  /** Whether the object may have several instances. */
  readonly multipleInstances: boolean;
  /** Resources by id; empty for IPSO objects, whose resources come from {@link REUSABLE_RESOURCES}. */
  readonly resources: ReadonlyMap<number, ResourceModel>;
}

/** Where the codecs look a resource's definition up; the adapter may pass its own (loaded from data files). */
export type ResourceLookup = (objectId: number, resourceId: number) => ResourceModel | undefined;

/** A resource as the data files write it (`objects/*.json`). */
interface ResourceRecord {
  id: number;
  name: string;
  type: ResourceType;
  operations: Operations;
  multiple: boolean;
}

/** The data files beside the package: `objects.json` (objects with their resources) and the reusable resources. */
const DATA_DIR = new URL("../../objects/", import.meta.url);

const TYPES: readonly string[] = [
  "string",
  "integer",
  "unsignedInteger",
  "float",
  "boolean",
  "opaque",
  "time",
  "objlnk",
  "corelnk",
  "none",
];
const OPERATIONS: readonly string[] = ["R", "W", "RW", "E"];

/** Reads a data file's resources, refusing (at start, naming the file) any that is not a well-formed definition. */
function resourceMap(records: unknown, file: string): ReadonlyMap<number, ResourceModel> {
  if (!Array.isArray(records)) throw new Error(`${file}: resources must be an array`);
  return new Map(
    (records as ResourceRecord[]).map((r) => {
      const ok =
        Number.isInteger(r.id) &&
        typeof r.name === "string" &&
        TYPES.includes(r.type) &&
        OPERATIONS.includes(r.operations) &&
        typeof r.multiple === "boolean";
      if (!ok) throw new Error(`${file}: malformed resource ${JSON.stringify(r)}`);
      return [r.id, { id: r.id, name: r.name, type: r.type, operations: r.operations, multiple: r.multiple }];
    }),
  );
}

const readData = (name: string): unknown => JSON.parse(readFileSync(new URL(name, DATA_DIR), "utf8"));

/**
 * Every object the data files define, by id: the core objects 0–7 with their resources, and the IPSO objects, whose
 * resources are the reusable ones. Loaded once, when the module is first imported.
 */
export const OBJECTS: ReadonlyMap<number, ObjectModel> = new Map(
  (readData("objects.json") as Array<{ id: number; name: string; multipleInstances: boolean; resources: unknown }>).map(
    (o) => [
      o.id,
      {
        id: o.id,
        name: o.name,
        multipleInstances: o.multipleInstances,
        resources: resourceMap(o.resources, "objects.json"),
      },
    ],
  ),
);

/**
 * The reusable resources of the OMA registry (IPSO 5500–5999) that the IPSO objects use, with the types the
 * registry gives them (`objects/reusable-resources.json`).
 */
export const REUSABLE_RESOURCES: ReadonlyMap<number, ResourceModel> = resourceMap(
  readData("reusable-resources.json"),
  "reusable-resources.json",
);

/** The definition of an object, when the table has it. */
export function objectModel(objectId: number): ObjectModel | undefined {
  return OBJECTS.get(objectId);
}

/**
 * The definition of a resource: the object's own, else (for any object but the core ones, whose ids are their own)
 * the reusable resource of that id; undefined when neither knows it.
 */
export const resourceModel: ResourceLookup = (objectId, resourceId) => {
  const own = OBJECTS.get(objectId)?.resources.get(resourceId);
  if (own !== undefined || objectId <= 7) return own;
  return REUSABLE_RESOURCES.get(resourceId);
};

/** The data type at a resource or resource-instance path, when known; undefined above resource level or unknown. */
export function resourceType(path: ObjectPath, lookup: ResourceLookup = resourceModel): ResourceType | undefined {
  return path.resourceId === undefined ? undefined : lookup(path.objectId, path.resourceId)?.type;
}
