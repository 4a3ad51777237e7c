import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RESEND_SCAN_ROWS, RESEND_WINDOW_MS, repeats } from "./resend-match.js";
import type { Store, UplinkRecord } from "./store.js";
import { engines } from "./test-engines.js";

const T0 = 1_700_000_000_000;

/** An uplink of device 7 taken by adapter process `instance`, with MQTT packet id 17 unless told otherwise. */
function uplink(instance: string, seq: number, over: Partial<UplinkRecord> = {}): UplinkRecord {
  return {
    msgKey: `${instance}:${seq}`,
    tenantId: "t1",
    deviceIntId: 7,
    gatewayIntId: null,
    topic: "up/data",
    payload: Buffer.from("reading-1"),
    ip: "10.0.0.1",
    qos: 1,
    msgTime: T0,
    resendId: "mqtt:17",
    ...over,
  };
}

async function payloads(store: Store): Promise<string[]> {
  const rows = await store.db.selectFrom("deviceEvents").select("payload").orderBy("id").execute();
  return rows.map((r) => Buffer.from(r.payload).toString());
}

describe("repeats", () => {
  const copy = { topic: "up/data", payload: Buffer.from("x"), msgTime: T0 };

  it("holds for the same topic and payload within the window, and not past it", () => {
    expect(repeats(copy, { topic: "up/data", payload: Buffer.from("x"), msgTime: T0 + RESEND_WINDOW_MS })).toBe(true);
    expect(repeats(copy, { topic: "up/data", payload: Buffer.from("x"), msgTime: T0 + RESEND_WINDOW_MS + 1 })).toBe(
      false,
    );
  });

  it("fails for another topic or payload", () => {
    expect(repeats(copy, { topic: "up/other", payload: Buffer.from("x"), msgTime: T0 })).toBe(false);
    expect(repeats(copy, { topic: "up/data", payload: Buffer.from("y"), msgTime: T0 })).toBe(false);
  });
});

describe.each(engines)("resends after an adapter crash on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("acks a flagged resend (MQTT DUP=1) of a stored uplink as a duplicate and stores no second row", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await expect(store.uplinks.write(uplink("old", 1))).resolves.toBe("stored");
    const resend = uplink("new", 1, { msgTime: T0 + 2_000, maybeResend: true });
    await expect(store.uplinks.write(resend)).resolves.toBe("duplicate");
    expect(await payloads(store)).toEqual(["reading-1"]);
  });

  it("stores a new message (DUP=0) that reuses a stored uplink's packet id, topic and payload", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 1));
    await expect(store.uplinks.write(uplink("new", 1, { msgTime: T0 + 2_000 }))).resolves.toBe("stored");
    expect(await payloads(store)).toEqual(["reading-1", "reading-1"]);
  });

  it("stores a flagged resend whose payload or topic differs from the stored uplink with its id", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 1));
    const other = { msgTime: T0 + 1_000, maybeResend: true };
    await expect(store.uplinks.write(uplink("new", 1, { ...other, payload: Buffer.from("reading-2") }))).resolves.toBe(
      "stored",
    );
    await expect(store.uplinks.write(uplink("new", 2, { ...other, topic: "up/other" }))).resolves.toBe("stored");
    expect(await payloads(store)).toEqual(["reading-1", "reading-2", "reading-1"]);
  });

  it("stores a flagged resend whose first copy is older than the window", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 1));
    const late = uplink("new", 1, { msgTime: T0 + RESEND_WINDOW_MS + 1, maybeResend: true });
    await expect(store.uplinks.write(late)).resolves.toBe("stored");
    expect(await payloads(store)).toHaveLength(2);
  });

  it("compares a flagged resend with the device's latest uplink of that id only", async () => {
    // Packet id 17 carried reading-1, then (after its PUBACK) reading-2; a DUP resend of reading-1 now is another
    // message that happens to look like the older one, so it is stored.
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 1));
    await store.uplinks.write(uplink("old", 2, { msgTime: T0 + 10, payload: Buffer.from("reading-2") }));
    const resend = uplink("new", 1, { msgTime: T0 + 20, maybeResend: true });
    await expect(store.uplinks.write(resend)).resolves.toBe("stored");
  });

  it("never matches another device's uplink, nor one without a resend id", async () => {
    const { store } = await engine.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 1, { deviceIntId: 8 }));
    await store.uplinks.write(uplink("old", 2, { resendId: null }));
    await expect(store.uplinks.write(uplink("new", 1, { maybeResend: true }))).resolves.toBe("stored");
  });

  it("recognises a resend in the same batch as its first copy", async () => {
    const { store } = await engine.open({ batchMaxRows: 10, batchMaxDelayMs: 1_000 });
    const writes = [uplink("old", 1), uplink("new", 1, { maybeResend: true })].map((r) => store.uplinks.write(r));
    await store.uplinks.flush();
    expect(await Promise.all(writes)).toEqual(["stored", "duplicate"]);
  });

  it("finds the first copy among the device's last uplinks only", async () => {
    const { store } = await engine.open({ batchMaxRows: 2_000, batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink("old", 0));
    const later = Array.from({ length: RESEND_SCAN_ROWS }, (_, i) =>
      uplink("old", i + 1, { resendId: `mqtt:${1000 + i}`, msgTime: T0 + 1 }),
    );
    await Promise.all(later.map((r) => store.uplinks.write(r)));
    await expect(store.uplinks.write(uplink("new", 1, { maybeResend: true }))).resolves.toBe("stored");
  });

  it("recognises a resend that reaches another central node on the same database", async () => {
    const { store: first, place } = await engine.open({ batchMaxDelayMs: 1 });
    const { store: second } = await engine.open({ batchMaxDelayMs: 1 }, place);
    await first.uplinks.write(uplink("old", 1));
    await expect(second.uplinks.write(uplink("new", 1, { maybeResend: true }))).resolves.toBe("duplicate");
  });
});
