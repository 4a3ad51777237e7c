import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createProduct } from "../domain/products.js";
import { createDevice } from "../domain/devices.js";
import { createGateway } from "../domain/gateways.js";
import { addGroupDevices, createGroup, getGroup } from "../domain/groups.js";
import { getTask, TASK_STATUS } from "../domain/tasks.js";
import { getLoraMulticast, putLoraMulticast } from "../lora/lora-multicast.js";
import { SessionTable } from "../sessions/session-table.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { CommandRouter } from "./commands.js";
import { PUBLISH_STATUS } from "./publish-status.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const KEY = "2B7E151628AED2A6ABF7158809CF4F3C";
const MC = { mcAddr: "01ab23cd", keys: { mcNwkSKey: KEY, mcAppSKey: "00112233445566778899AABBCCDDEEFF" } };

describe.each(engines)("LoRaWAN multicast group commands on $name", (engine) => {
  async function setup(members: number) {
    const { db, caller } = await twoTenants(engine);
    const sessions = new SessionTable();
    const router = new CommandRouter(db, sessions, 60_000);
    const product = await createProduct(db, caller, { productName: "Lights", cloudProtocol: 4 });
    const gw = await createGateway(db, caller, {
      productId: product.productId,
      deviceName: "gw",
      deviceId: "AA555A0000000101",
      gatewayProtocol: 4,
      authType: 1,
    });
    const devices = [];
    for (let i = 0; i < members; i++)
      devices.push(
        await createDevice(db, caller, {
          productId: product.productId,
          deviceName: `light ${i}`,
          deviceId: `26011C0${i}`,
          upLinkSystem: 2,
          gateway: gw.id,
          lora: { type: "abp", region: "EU868", nwkSKey: KEY, appSKey: KEY, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
        }),
      );
    const created = await createGroup(db, caller, { productId: product.productId, groupName: "Street" });
    await addGroupDevices(
      db,
      caller,
      created.id,
      devices.map((d) => d.id),
    );
    const group = await getGroup(db, caller, created.id);
    const memberStatus = async (taskIntId: number) =>
      (
        await db
          .selectFrom("controlLogs")
          .select("publishStatus")
          .where("taskIntId", "=", taskIntId)
          .where("deviceIntId", "is not", null)
          .orderBy("id")
          .execute()
      ).map((r) => r.publishStatus);
    return { db, caller, sessions, router, devices, group, memberStatus };
  }

  it("sends one Downlink with the session and the next McFCntDown to the adapter holding the members", async () => {
    const { db, caller, sessions, router, devices, group, memberStatus } = await setup(3);
    await putLoraMulticast(db, caller, group.id, { ...MC, fcntDown: 7 });
    const adapter = fakeAdapterLink(sessions, "lorawan-1", 4);
    adapter.open(devices[0]!.id);
    adapter.open(devices[1]!.id);
    const { task, controlLogId } = await router.publishToGroup(caller, { group, payload: "on", qos: 1 });
    expect(adapter.sent).toHaveLength(1);
    expect(adapter.sent[0]).toMatchObject({
      id: controlLogId,
      payload: "on",
      qos: 0,
      loraMulticast: { mcAddr: "01AB23CD", mcNwkSKey: KEY, fcnt: 7, deviceIntIds: [devices[0]!.id, devices[1]!.id] },
    });
    expect((await getLoraMulticast(db, caller, group.id)).fcntDown).toBe(8);
    // The member no adapter holds is outside the multicast: failed at once.
    expect(await memberStatus(task.id)).toEqual([1, 1, 0]);

    await router.settle(
      controlLogId,
      PUBLISH_STATUS.sent,
      "sent as multicast to 2 gateways that last heard 2 of the 2 members",
      undefined,
      { multicast: { gateways: 2, covered: 2 } },
    );
    await expect.poll(async () => (await getTask(db, caller, task.taskId)).progress).toBe(100);
    const done = await getTask(db, caller, task.taskId);
    expect(done.status).toBe(TASK_STATUS.failed);
    expect(done.message).toBe(
      "multicast (McAddr 01AB23CD, FCnt 7) sent by 2 gateways that last heard 2 of 3 devices; 1 of 3 devices failed",
    );
    expect(JSON.parse(done.result!)).toEqual({
      total: 3,
      success: 2,
      failed: 1,
      pending: 0,
      multicast: { mcAddr: "01AB23CD", fCnt: 7, gateways: 2, covered: 2 },
    });
    expect(await memberStatus(task.id)).toEqual([3, 3, 0]);
    await router.stop();
  });

  it("ends as sent (3), never delivered, when every member got the frame of a command asking for acknowledgement", async () => {
    const { db, caller, sessions, router, devices, group, memberStatus } = await setup(2);
    await putLoraMulticast(db, caller, group.id, MC);
    const adapter = fakeAdapterLink(sessions, "lorawan-1", 4);
    for (const d of devices) adapter.open(d.id);
    const { task, controlLogId } = await router.publishToGroup(caller, { group, payload: "on", qos: 1 });
    await router.settle(
      controlLogId,
      PUBLISH_STATUS.sent,
      "sent as multicast to 1 gateway that last heard 2 of the 2 members",
      undefined,
      { multicast: { gateways: 1, covered: 2 } },
    );
    await expect.poll(async () => (await getTask(db, caller, task.taskId)).status).toBe(TASK_STATUS.success);
    expect((await getTask(db, caller, task.taskId)).message).toBe(
      "multicast (McAddr 01AB23CD, FCnt 0) sent by 1 gateway that last heard 2 of 2 devices",
    );
    expect(await memberStatus(task.id)).toEqual([3, 3]);
    const groupLog = await db
      .selectFrom("controlLogs")
      .select("publishStatus")
      .where("id", "=", controlLogId)
      .executeTakeFirstOrThrow();
    expect(groupLog.publishStatus).toBe(PUBLISH_STATUS.sent);
    await router.stop();
  });

  it("fails the members the adapter held when it could not send the frame, with its reason", async () => {
    const { db, caller, sessions, router, devices, group, memberStatus } = await setup(2);
    await putLoraMulticast(db, caller, group.id, MC);
    const adapter = fakeAdapterLink(sessions, "lorawan-1", 4);
    for (const d of devices) adapter.open(d.id);
    const { task, controlLogId } = await router.publishToGroup(caller, { group, payload: "on", qos: 0 });
    await router.settle(controlLogId, PUBLISH_STATUS.failed, "no member is a class C device");
    await expect.poll(async () => (await getTask(db, caller, task.taskId)).status).toBe(TASK_STATUS.failed);
    expect(await memberStatus(task.id)).toEqual([0, 0]);
    expect((await getTask(db, caller, task.taskId)).message).toBe(
      "multicast (McAddr 01AB23CD, FCnt 0) sent by no gateway; 2 of 2 devices failed",
    );
    await router.stop();
  });

  it("leaves the command to the other nodes as unicast when none of the members is held on this one", async () => {
    const { db, caller, router, devices, group, memberStatus } = await setup(2);
    await putLoraMulticast(db, caller, group.id, MC);
    const asked: number[][] = [];
    const held = new Set(devices.map((d) => d.id));
    router.remote = {
      deliver: (ids) => void asked.push(ids),
      heldElsewhere: async () => held,
      handedOver: () => {},
    };
    const { task } = await router.publishToGroup(caller, { group, payload: "on", qos: 0 });
    // The members (and their gateway, which may relay for them) are asked for on the other nodes.
    expect(asked.flat()).toEqual(expect.arrayContaining([...held]));
    expect(await memberStatus(task.id)).toEqual([1, 1]);
    expect((await getLoraMulticast(db, caller, group.id)).fcntDown).toBe(0);
    await router.stop();
  });

  it("sends a unicast downlink per member to a group without a session", async () => {
    const { caller, sessions, router, devices, group } = await setup(2);
    const adapter = fakeAdapterLink(sessions, "lorawan-1", 4);
    for (const d of devices) adapter.open(d.id);
    await router.publishToGroup(caller, { group, payload: "on", qos: 0 });
    expect(adapter.sent.map((s) => [s.deviceIntId, s.loraMulticast])).toEqual([
      [devices[0]!.id, undefined],
      [devices[1]!.id, undefined],
    ]);
    await router.stop();
  });
});
