import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idsOf, policiesFixture, type PoliciesFixture } from "./policies-fixture.js";

describe.each(["1", "2"] as const)("policies in Form %s", (form) => {
  let { t, token, eveToken, PUB, SUB, BOTH, newPolicy, newDevice } = {} as PoliciesFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, PUB, SUB, BOTH, newPolicy, newDevice } = await policiesFixture(form));
  });
  afterAll(() => t.close());

  it("creates a policy with 201, answering the form's access code and storing Form 1 codes", async () => {
    const r = await t.call(
      "POST",
      "/policies",
      { name: "Subscribers", topic: "cmd/+/set", access: SUB, allow: "1", description: "d" },
      token,
    );
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      "access",
      "allow",
      "createAt",
      "description",
      "id",
      "name",
      "topic",
      "updateAt",
      "userIntID",
    ]);
    expect(r.body).toMatchObject({
      name: "Subscribers",
      topic: "cmd/+/set",
      access: SUB,
      allow: 1,
      description: "d",
      userIntID: 1,
      updateAt: null,
    });
    expect(r.body.createAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const row = await t.store.db
      .selectFrom("policies")
      .select(["access", "allow"])
      .where("id", "=", r.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ access: 2, allow: 1 });
    for (const [code, stored] of [
      [PUB, 1],
      [BOTH, 3],
    ] as const) {
      const p = await newPolicy(`code ${code}`, { access: code });
      expect(
        (await t.store.db.selectFrom("policies").select("access").where("id", "=", p.id).executeTakeFirstOrThrow())
          .access,
      ).toBe(stored);
    }
  });

  it("refuses a create body with FORM_INVALID naming each missing or bad field", async () => {
    const empty = await t.call("POST", "/policies", {}, token);
    expect(empty.status).toBe(400);
    expect(empty.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(empty.body.errors).sort()).toEqual(["access", "allow", "name", "topic"]);
    const outOfForm = form === "1" ? 0 : 3;
    const bad = await t.call("POST", "/policies", { name: "x", topic: "a", access: outOfForm, allow: 2 }, token);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["access", "allow"]);
    expect(bad.body.errors.access).toBe(form === "1" ? "must be one of 1, 2, 3" : "must be one of 0, 1, 2");
  });

  it("refuses topics that are not MQTT filters relative to the device with FORM_INVALID naming topic", async () => {
    for (const topic of ["", "a+/b", "a/#/b", "a#", "$SYS/#", "a\u0000b", "x".repeat(1025), 5]) {
      const r = await t.call("POST", "/policies", { name: "x", topic, access: PUB, allow: 1 }, token);
      expect(r.status, JSON.stringify(topic)).toBe(400);
      expect(r.body.errors, JSON.stringify(topic)).toEqual({ topic: expect.any(String) });
    }
    for (const topic of ["+/+/#", "#", "a/+", "x".repeat(1024)])
      expect(
        (await t.call("POST", "/policies", { name: "ok", topic, access: PUB, allow: 0 }, token)).status,
        topic,
      ).toBe(201);
  });

  it("lists policies newest first with labels and mqtt_acl, filtered by name_like and paged", async () => {
    const a = await newPolicy("Listed 100%", { access: PUB, allow: 0 });
    const b = await newPolicy("listed two");
    const d = await newDevice("acl-member");
    await t.call("POST", `/policies/${b.id}/devices`, { devicesIntID: [d.id] }, token);
    await newPolicy("Listed by eve", {}, eveToken);
    const r = await t.call("GET", "/policies?name_like=LISTED&_limit=1&_page=2", undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 2 });
    expect(r.body.items).toEqual([
      {
        id: a.id,
        name: "Listed 100%",
        topic: "data/#",
        access: PUB,
        accessLabel: "Publish",
        allow: 0,
        allowLabel: "Deny",
        description: null,
        mqtt_acl: [],
        userIntID: 1,
        createAt: expect.any(String),
        updateAt: null,
      },
    ]);
    const first = (await t.call("GET", "/policies?name_like=listed", undefined, token)).body.items[0];
    expect(first).toMatchObject({
      id: b.id,
      access: BOTH,
      accessLabel: "Publish and subscribe",
      allowLabel: "Allow",
      mqtt_acl: [{ id: d.id }],
    });
    expect(idsOf((await t.call("GET", "/policies?name_like=100%25", undefined, token)).body)).toEqual([a.id]);
    expect((await t.call("GET", "/policies?_page=x", undefined, token)).body).toMatchObject({
      errorCode: "PARAMETER_INVALID",
      errors: { _page: expect.any(String) },
    });
  });

  it("shows a policy's detail with createUser and labels in the caller's language", async () => {
    const p = await newPolicy("Detailed", { access: SUB, allow: 1, description: "x" });
    const r = await t.call("GET", `/policies/${p.id}`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: p.id,
      name: "Detailed",
      topic: "data/#",
      access: SUB,
      accessLabel: "Subscribe",
      allow: 1,
      allowLabel: "Allow",
      description: "x",
      mqtt_acl: [],
      userIntID: 1,
      createUser: "admin",
      createAt: expect.any(String),
      updateAt: null,
    });
    const zh = await t.call("GET", `/policies/${p.id}`, undefined, token, { "accept-language": "zh-CN" });
    expect(zh.body).toMatchObject({ accessLabel: "订阅", allowLabel: "允许" });
  });

  it("edits from the whole record, dropping read-only members and mapping the form's access code", async () => {
    const p = await newPolicy("Before", { access: PUB });
    const record = (await t.call("GET", `/policies/${p.id}`, undefined, token)).body;
    const sent = {
      ...record,
      id: 424242,
      userIntID: 7,
      createUser: "eve",
      createAt: "2000-01-01 00:00:00",
      accessLabel: "x",
      mqtt_acl: [{ id: 1 }],
      name: "After",
      topic: "up/+",
      access: SUB,
      allow: 0,
    };
    const r = await t.call("PUT", `/policies/${p.id}`, sent, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: p.id,
      name: "After",
      topic: "up/+",
      access: SUB,
      allow: 0,
      description: null,
      userIntID: 1,
      createAt: record.createAt,
      updateAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    expect(
      (await t.store.db.selectFrom("policies").select("access").where("id", "=", p.id).executeTakeFirstOrThrow())
        .access,
    ).toBe(2);
    const bad = await t.call("PUT", `/policies/${p.id}`, { topic: "a/#/b", access: 9 }, token);
    expect(bad.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { topic: expect.any(String), access: expect.any(String) },
    });
  });
});
