import { describe, expect, test } from "vitest";
import { objectModel, OBJECTS, resourceModel, resourceType, REUSABLE_RESOURCES } from "./objects.js";

describe("object table", () => {
  test("knows the core objects 0–7 and whether they have several instances", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((id) => [objectModel(id)?.name, objectModel(id)?.multipleInstances])).toEqual([
      ["LWM2M Security", true],
      ["LwM2M Server", true],
      ["LwM2M Access Control", true],
      ["Device", false],
      ["Connectivity Monitoring", false],
      ["Firmware Update", false],
      ["Location", false],
      ["Connectivity Statistics", false],
    ]);
  });

  test("lists no Security resource, so its keys are never typed or shown as text", () => {
    expect(objectModel(0)!.resources.size).toBe(0);
    expect(resourceModel(0, 5)).toBeUndefined();
  });

  test("types the Device resources of the specification's example", () => {
    expect(resourceModel(3, 0)).toEqual({
      id: 0,
      name: "Manufacturer",
      type: "string",
      operations: "R",
      multiple: false,
    });
    expect(resourceModel(3, 7)).toMatchObject({ type: "integer", multiple: true });
    expect(resourceModel(3, 13)).toMatchObject({ type: "time", operations: "RW" });
    expect(resourceModel(3, 4)).toMatchObject({ type: "none", operations: "E" });
    expect(resourceModel(1, 1)).toMatchObject({ name: "Lifetime", type: "integer" });
    expect(resourceModel(1, 6)).toMatchObject({ type: "boolean" });
    expect(resourceModel(5, 0)).toMatchObject({ name: "Package", type: "opaque", operations: "W" });
    expect(resourceModel(6, 0)).toMatchObject({ name: "Latitude", type: "float" });
  });

  test("knows the IPSO objects 3300–3350 it names and types their resources from the reusable ones", () => {
    expect(objectModel(3303)?.name).toBe("Temperature");
    expect(objectModel(3311)?.name).toBe("Light Control");
    expect(resourceModel(3303, 5700)).toMatchObject({ name: "Sensor Value", type: "float" });
    expect(resourceModel(3303, 5701)).toMatchObject({ name: "Sensor Units", type: "string" });
    expect(resourceModel(3311, 5850)).toMatchObject({ name: "On/Off", type: "boolean", operations: "RW" });
    expect(resourceModel(3311, 5851)).toMatchObject({ name: "Dimmer", type: "integer" });
    for (let id = 3300; id <= 3350; id++) if (objectModel(id)) expect(objectModel(id)!.multipleInstances).toBe(true);
  });

  test("a vendor object using reusable resources is typed by them too; unknown resources stay untyped", () => {
    expect(resourceModel(10_245, 5700)?.type).toBe("float");
    expect(resourceModel(10_245, 1)).toBeUndefined();
    expect(resourceModel(3303, 9999)).toBeUndefined();
  });

  test("core objects never borrow reusable resources: their ids have their own meaning there", () => {
    expect(resourceModel(3, 5700)).toBeUndefined();
  });

  test("resourceType answers for resource and resource-instance paths only", () => {
    expect(resourceType({ objectId: 3, instanceId: 0, resourceId: 9 })).toBe("integer");
    expect(resourceType({ objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 1 })).toBe("integer");
    expect(resourceType({ objectId: 3, instanceId: 0 })).toBeUndefined();
    expect(resourceType({ objectId: 3, instanceId: 0, resourceId: 9 }, () => undefined)).toBeUndefined();
  });

  test("the tables are consistent: ids match their keys and names are unique within an object", () => {
    for (const [id, o] of OBJECTS) {
      expect(o.id).toBe(id);
      const names = [...o.resources.values()].map((r) => r.name);
      expect(new Set(names).size).toBe(names.length);
      for (const [rid, r] of o.resources) expect(r.id).toBe(rid);
    }
    for (const [rid, r] of REUSABLE_RESOURCES) {
      expect(r.id).toBe(rid);
      expect(rid).toBeGreaterThanOrEqual(5500);
      expect(rid).toBeLessThan(6000);
      expect(r.type === "none").toBe(r.operations === "E");
    }
  });
});
