import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { nextEvents } from "./next-events.js";
import { pipelineSetup, plainDevice, T0 } from "./test-pipeline.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("next events on $name", (engine) => {
  it("sums up the next events after a cursor by device, within the limit, in id order", async () => {
    const { db, store, caller, pipeline, uplink, device } = await pipelineSetup(engine);
    await pipeline.close();
    const plainUplink = await plainDevice({ db, store, caller });
    await uplink("telemetry", "{}", T0 + 50);
    await plainUplink(10);
    await uplink("telemetry", "{}", T0 + 30);
    await plainUplink(20);
    await uplink("telemetry", "{}", T0 + 40);
    const ids = (await db.selectFrom("deviceEvents").select(["id", "deviceIntId"]).orderBy("id").execute()).map(
      (r) => ({ id: Number(r.id), deviceIntId: r.deviceIntId }),
    );
    expect(ids).toHaveLength(5);
    const plainId = ids[1]!.deviceIntId;

    const firstFour = await nextEvents(db, 0, 4);
    expect(firstFour && { ...firstFour, deviceIntIds: [...firstFour.deviceIntIds].sort() }).toEqual({
      deviceIntIds: [device.id, plainId].sort(),
      lastId: ids[3]!.id,
      count: 4,
      newestMsgTime: T0 + 50,
    });
    expect(await nextEvents(db, ids[3]!.id, 4)).toEqual({
      deviceIntIds: [device.id],
      lastId: ids[4]!.id,
      count: 1,
      newestMsgTime: T0 + 40,
    });
    expect(await nextEvents(db, ids[4]!.id, 4)).toBeUndefined();
  });
});
