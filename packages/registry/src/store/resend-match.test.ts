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

  // On SQLite the lookup is answered from memory once a device was looked up (RecentResendIds): these hold for both.
  describe("for a device looked up before", () => {
    /** A flagged uplink with an id nobody used: the device's first lookup, stored. */
    const firstLookup = (seq: number, msgTime = T0 + 1) =>
      uplink("probe", seq, { resendId: `mqtt:${60_000 + seq}`, msgTime, maybeResend: true });

    it("recognises a resend of an uplink stored before the store restarted", async () => {
      const { store, place } = await engine.open({ batchMaxDelayMs: 1 });
      await store.uplinks.write(uplink("old", 1));
      await store.close();
      const { store: again } = await engine.open({ batchMaxDelayMs: 1 }, place);
      await expect(again.uplinks.write(uplink("new", 1, { msgTime: T0 + 5, maybeResend: true }))).resolves.toBe(
        "duplicate",
      );
      expect(await payloads(again)).toEqual(["reading-1"]);
    });

    it("recognises a resend of an uplink stored after that lookup, and stores a new message reusing its id", async () => {
      const { store } = await engine.open({ batchMaxDelayMs: 1 });
      await expect(store.uplinks.write(firstLookup(1))).resolves.toBe("stored");
      await store.uplinks.write(uplink("old", 1, { msgTime: T0 + 2, resendId: "coap:5:ab" }));
      const resend = { msgTime: T0 + 3, resendId: "coap:5:ab", maybeResend: true };
      await expect(store.uplinks.write(uplink("new", 1, resend))).resolves.toBe("duplicate");
      const other = { ...resend, payload: Buffer.from("reading-2") };
      await expect(store.uplinks.write(uplink("new", 2, other))).resolves.toBe("stored");
      // The latest uplink with the id now carries reading-2: a resend of reading-1 is a new message.
      await expect(store.uplinks.write(uplink("new", 3, resend))).resolves.toBe("stored");
      await expect(store.uplinks.write(uplink("new", 4, { ...resend, msgTime: T0 + 4 }))).resolves.toBe("duplicate");
      expect(await payloads(store)).toEqual(["reading-1", "reading-1", "reading-2", "reading-1"]);
    });

    it("finds a first copy among the device's last uplinks stored since, and not past them", async () => {
      const { store } = await engine.open({ batchMaxRows: 2_000, batchMaxDelayMs: 1 });
      await store.uplinks.write(uplink("old", 0));
      await expect(store.uplinks.write(firstLookup(1))).resolves.toBe("stored");
      // With the lookup's own uplink, the first copy is now the 1000th latest: still found.
      const later = Array.from({ length: RESEND_SCAN_ROWS - 2 }, (_, i) =>
        uplink("old", i + 1, { resendId: i % 2 === 0 ? null : `mqtt:${1000 + i}`, msgTime: T0 + 2 }),
      );
      await Promise.all(later.map((r) => store.uplinks.write(r)));
      await expect(store.uplinks.write(uplink("new", 1, { msgTime: T0 + 3, maybeResend: true }))).resolves.toBe(
        "duplicate",
      );
      // One more uplink of the device and it is the 1001st.
      await store.uplinks.write(uplink("old", 5_000, { resendId: null, msgTime: T0 + 4 }));
      await expect(store.uplinks.write(uplink("new", 2, { msgTime: T0 + 5, maybeResend: true }))).resolves.toBe(
        "stored",
      );
    });

    it("stores a flagged resend whose first copy, stored after that lookup, is older than the window", async () => {
      const { store } = await engine.open({ batchMaxDelayMs: 1 });
      await store.uplinks.write(firstLookup(1, T0 - 1));
      await store.uplinks.write(uplink("old", 1));
      const late = uplink("new", 1, { msgTime: T0 + RESEND_WINDOW_MS + 1, maybeResend: true });
      await expect(store.uplinks.write(late)).resolves.toBe("stored");
      const inTime = uplink("new", 2, { msgTime: T0 + RESEND_WINDOW_MS + 2, maybeResend: true });
      await expect(store.uplinks.write(inTime)).resolves.toBe("duplicate");
    });

    it("recognises resends of devices dropped from memory to make room for others", async () => {
      // The least the store keeps: one device's last 1000 uplinks.
      const { store } = await engine.open({ batchMaxRows: 2_000, batchMaxDelayMs: 1, recentResendIds: 1 });
      const fill = (deviceIntId: number) =>
        Array.from({ length: RESEND_SCAN_ROWS }, (_, i) =>
          uplink(`fill${deviceIntId}`, i, { deviceIntId, resendId: `mqtt:${i}`, payload: Buffer.from(`${i}`) }),
        );
      await Promise.all([...fill(7), ...fill(8)].map((r) => store.uplinks.write(r)));
      for (const [n, deviceIntId] of [7, 8, 7, 8].entries()) {
        const resend = { deviceIntId, msgTime: T0 + 1, maybeResend: true, resendId: `mqtt:${n}` };
        await expect(store.uplinks.write(uplink("new", n, { ...resend, payload: Buffer.from(`${n}`) }))).resolves.toBe(
          "duplicate",
        );
        await expect(store.uplinks.write(uplink("new", 10 + n, resend))).resolves.toBe("stored");
      }
    });
  });
});
