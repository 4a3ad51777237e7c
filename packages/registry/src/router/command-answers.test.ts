import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { addGroupDevices, createGroup, getGroup } from "../domain/groups.js";
import { createDevice } from "../domain/devices.js";
import { readEvents } from "../northbound/events.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { uplinkAnswerKey } from "./command-properties.js";
import { routerSetup } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

/** The metadata an MQTT 5.0 uplink with this correlation data has (the MQTT adapter's keptProperties). */
const metadataWith = (correlationData: string) =>
  JSON.stringify({ correlationData: Buffer.from(correlationData).toString("base64") });

describe.each(engines)("commands answered by their device (MQTT 5.0 request/response) on $name", (engine) => {
  async function setup(name: string) {
    const s = await routerSetup(engine);
    const d = await s.device(name);
    let seq = 0;
    /** Stores an uplink of the device as the gRPC intake does, with its answer key. */
    const uplink = (topic: string, payload: string, correlationData?: string) => {
      const metadata = correlationData === undefined ? null : metadataWith(correlationData);
      return s.store.uplinks.write({
        msgKey: `${name}:${++seq}`,
        tenantId: s.caller.tenantId,
        deviceIntId: d.id,
        gatewayIntId: null,
        topic,
        payload: Buffer.from(payload),
        ip: null,
        qos: 1,
        msgTime: 1_000,
        metadata,
        answerKey: uplinkAnswerKey(topic, metadata) ?? null,
      });
    };
    const log = (id: number) =>
      s.db
        .selectFrom("controlLogs")
        .select(["publishStatus", "result", "properties", "awaitingAnswer"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
    return { ...s, d, uplink, log };
  }

  it("keeps a command's properties, sends them with it and settles it with its device's first answer", async () => {
    const { caller, router, sessions, d, uplink, log } = await setup("rr1");
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const properties = {
      userProperties: { k: ["1", "2"] },
      contentType: "text/plain",
      payloadFormatIndicator: 1 as const,
      responseTopic: "resp/1",
      correlationData: "req-1",
    };
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "get", qos: 1, properties });
    expect(JSON.parse(adapter.sent[0]!.properties!)).toEqual(properties);
    expect(await log(r.id)).toMatchObject({ result: null, awaitingAnswer: expect.any(String) });

    await uplink("resp/1", "other answer", "req-2");
    await uplink("resp/2", "wrong topic", "req-1");
    await uplink("resp/1", "no correlation");
    expect((await log(r.id)).result).toBeNull();

    await uplink("resp/1", "answer", "req-1");
    expect(await log(r.id)).toMatchObject({ publishStatus: 1, result: "answer", awaitingAnswer: null });
    await uplink("resp/1", "second answer", "req-1");
    expect((await log(r.id)).result).toBe("answer");
  });

  it("tells the feed what the answer said, in a command_result event", async () => {
    const { db, caller, router, d, uplink } = await setup("rr2");
    const r = await router.publish(caller, {
      deviceIntId: d.id,
      payload: "get",
      qos: 0,
      properties: { responseTopic: "resp", correlationData: "c" },
    });
    await uplink("resp", '{"temp":21}', "c");
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => e.data)).toEqual([
      { controlLogID: r.id, publishStatus: 1, status: "issued", topic: "inbox", result: '{"temp":21}' },
    ]);
  });

  it("waits for no answer from a command without both a response topic and correlation data", async () => {
    const { caller, router, d, log } = await setup("rr3");
    const plain = await router.publish(caller, { deviceIntId: d.id, payload: "x", qos: 1 });
    const topicOnly = await router.publish(caller, {
      deviceIntId: d.id,
      payload: "x",
      qos: 1,
      properties: { responseTopic: "resp" },
    });
    expect(await log(plain.id)).toMatchObject({ properties: null, awaitingAnswer: null });
    expect(await log(topicOnly.id)).toMatchObject({ properties: '{"responseTopic":"resp"}', awaitingAnswer: null });
  });

  it("gives every member of a group command the properties, and each member's answer settles its own log", async () => {
    const { db, caller, router, d, uplink, log, device, product } = await setup("rr4");
    const other = await device("rr4b");
    const group = await createGroup(db, caller, { productId: product.productId, groupName: "RR" });
    await addGroupDevices(db, caller, group.id, [d.id, other.id]);
    const { task } = await router.publishToGroup(caller, {
      group: await getGroup(db, caller, group.id),
      payload: "all",
      qos: 1,
      properties: { responseTopic: "resp", correlationData: "g" },
    });
    const logs = await db
      .selectFrom("controlLogs")
      .select(["id", "deviceIntId"])
      .where("taskIntId", "=", task.id)
      .where("deviceIntId", "is not", null)
      .orderBy("id")
      .execute();
    expect(logs).toHaveLength(2);
    await uplink("resp", "mine", "g");
    expect((await log(logs.find((l) => l.deviceIntId === d.id)!.id)).result).toBe("mine");
    expect((await log(logs.find((l) => l.deviceIntId === other.id)!.id)).result).toBeNull();
  });

  it("names a relayed command's response topic under the child's relay prefix, and the child's answer settles it", async () => {
    const { db, caller, sessions, router, product, store, log } = await setup("rr5");
    const gw = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "gw5",
      deviceType: 2,
      authType: 1,
    });
    const child = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "c5",
      deviceId: "child-5",
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
    });
    const r = await router.publish(caller, {
      deviceIntId: child.id,
      payload: "on",
      qos: 1,
      properties: { responseTopic: "resp", correlationData: "c5" },
    });
    const adapter = fakeAdapterLink(sessions);
    adapter.open(gw.id);
    expect(await router.deliverPending([gw.id])).toBe(1);
    expect(JSON.parse(adapter.sent[0]!.properties!)).toEqual({
      responseTopic: "devices/child-5/resp",
      correlationData: "c5",
    });
    // The gateway's answer on devices/child-5/resp is the child's uplink on "resp" once the intake resolved the relay.
    const metadata = metadataWith("c5");
    await store.uplinks.write({
      msgKey: "rr5:relayed",
      tenantId: caller.tenantId,
      deviceIntId: child.id,
      gatewayIntId: gw.id,
      topic: "resp",
      payload: Buffer.from("done"),
      ip: null,
      qos: 1,
      msgTime: 1_000,
      metadata,
      answerKey: uplinkAnswerKey("resp", metadata) ?? null,
    });
    expect((await log(r.id)).result).toBe("done");
  });
});
