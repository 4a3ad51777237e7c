import { describe, expect, it } from "vitest";
import { CoapError } from "./coap-error.js";
import { RequestSlots } from "./request-slots.js";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("request slots", () => {
  it("lets NSTART requests to a peer go at once and the next ones in order as slots free", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 10, maxTotal: 10 });
    const order: string[] = [];
    const first = await slots.acquire("p");
    const other = await slots.acquire("q");
    void slots.acquire("p").then((release) => (order.push("second"), release));
    void slots.acquire("p").then((release) => order.push("third") && release());
    await tick();
    expect(order).toEqual([]);
    first();
    first(); // a second release frees nothing more
    await tick();
    expect(order).toEqual(["second"]);
    other();
    expect(slots.size).toBe(2);
  });

  it("refuses busy past the per-peer and total bounds, counting waiting requests", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 2, maxTotal: 3 });
    await slots.acquire("p");
    void slots.acquire("p");
    await expect(slots.acquire("p")).rejects.toMatchObject({ code: "busy" });
    await slots.acquire("q");
    await expect(slots.acquire("r")).rejects.toMatchObject({ code: "busy" });
    expect(slots.size).toBe(3);
  });

  it("refuses the waiting requests when cleared", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 5, maxTotal: 5 });
    await slots.acquire("p");
    const waiting = slots.acquire("p");
    slots.clear(new CoapError("closed", "closing"));
    await expect(waiting).rejects.toMatchObject({ code: "closed" });
    expect(slots.size).toBe(1);
  });
});
