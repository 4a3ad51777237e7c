import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { createDevice } from "../domain/devices.js";
import { addGroupDevices, createGroup, getGroup } from "../domain/groups.js";
import { createDataPoint } from "../domain/data-points.js";
import { createDataStream } from "../domain/data-streams.js";
import { RegistryError } from "../errors.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("commands with data points on $name", (engine) => {
  /** A product with a device command stream `cmd/motor` (speed 0..100, mode enum) and a gateway one `gw/cmd`. */
  async function pointSetup() {
    const s = await routerSetup(engine);
    const productIntId = s.product.id;
    const gw = await createDevice(s.db, s.caller, {
      productId: s.product.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    const speed = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Speed",
      dataPointId: "speed",
      pointDataType: 1,
      dataTransType: 2,
      lowerLimit: 0,
      upperLimit: 100,
    });
    const mode = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Mode",
      dataPointId: "mode",
      pointDataType: 3,
      dataTransType: 3,
      enum: ["auto", "manual"],
    });
    const reboot = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Reboot",
      dataPointId: "reboot",
      pointDataType: 5,
      dataTransType: 2,
    });
    const stream = { productIntId, streamDataType: 1 };
    await createDataStream(s.db, s.caller, {
      ...stream,
      streamName: "Motor",
      streamType: 2,
      topic: "cmd/motor",
      dataPoints: [speed.id, mode.id],
    });
    await createDataStream(s.db, s.caller, {
      ...stream,
      streamName: "Gateway",
      streamType: 4,
      topic: "gw/cmd",
      dataPoints: [reboot.id],
    });
    const logCount = async () =>
      Number(
        (
          await s.db
            .selectFrom("controlLogs")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { ...s, gw, logCount };
  }

  it("sends a data point command without a topic to its command stream's topic", async () => {
    const { db, caller, router, device } = await pointSetup();
    const d = await device("m1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: '{"speed": 42, "mode": "auto"}', qos: 1 });
    const log = await db.selectFrom("controlLogs").selectAll().where("id", "=", r.id).executeTakeFirstOrThrow();
    expect(log).toMatchObject({ topic: "cmd/motor", payload: '{"speed": 42, "mode": "auto"}' });
  });

  it("refuses a value outside the point's rules with FORM_INVALID naming the point, and records nothing", async () => {
    const { caller, router, device, logCount } = await pointSetup();
    const d = await device("m2");
    const before = await logCount();
    const err = await router
      .publish(caller, { deviceIntId: d.id, payload: '{"speed": 250, "mode": "turbo"}', qos: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({
      code: "FORM_INVALID",
      errors: {
        "payload.speed": "must be at most 100 (upperLimit)",
        "payload.mode": "must be one of auto, manual (enum)",
      },
    });
    expect(await logCount()).toBe(before);
  });

  it("checks a gateway's commands against the gateway command streams (type 4), not the device ones", async () => {
    const { caller, router, gw } = await pointSetup();
    const ok = await router.publish(caller, { deviceIntId: gw.id, payload: '{"reboot": true}', qos: 1 });
    expect(ok.publishStatus).toBe(PUBLISH_STATUS.issued);
    await expect(router.publish(caller, { deviceIntId: gw.id, payload: '{"speed": 1}', qos: 1 })).rejects.toMatchObject(
      { code: "FORM_INVALID", errors: { "payload.speed": "is not a data point of the product's command streams" } },
    );
  });

  it("keeps opaque payloads and commands to other topics as they were", async () => {
    const { db, caller, router, device } = await pointSetup();
    const d = await device("m3");
    const plain = await router.publish(caller, { deviceIntId: d.id, payload: "on", qos: 1 });
    const other = await router.publish(caller, { deviceIntId: d.id, topic: "inbox", payload: '{"x": 1}', qos: 1 });
    const topics = await db
      .selectFrom("controlLogs")
      .select(["id", "topic"])
      .where("id", "in", [plain.id, other.id])
      .orderBy("id")
      .execute();
    expect(topics.map((l) => l.topic)).toEqual(["inbox", "inbox"]);
  });

  it("checks a group command like a device command and sends it to the stream's topic on every member", async () => {
    const { db, caller, router, product, device } = await pointSetup();
    const group = await createGroup(db, caller, { productId: product.productId, groupName: "Motors" });
    const members = [await device("gm1"), await device("gm2")];
    await addGroupDevices(
      db,
      caller,
      group.id,
      members.map((m) => m.id),
    );
    const g = await getGroup(db, caller, group.id);
    await expect(router.publishToGroup(caller, { group: g, payload: '{"speed": -5}', qos: 1 })).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { "payload.speed": "must be at least 0 (lowerLimit)" },
    });
    const { task } = await router.publishToGroup(caller, { group: g, payload: '{"speed": 5}', qos: 1 });
    const logs = await db.selectFrom("controlLogs").select("topic").where("taskIntId", "=", task.id).execute();
    expect(logs.map((l) => l.topic)).toEqual(["cmd/motor", "cmd/motor", "cmd/motor"]);
  });
});
