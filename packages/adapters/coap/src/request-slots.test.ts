import { nextTurn as tick } from "@iot/config/testing";
import { describe, expect, it } from "vitest";
import { CoapError } from "./coap-error.js";
import { RequestSlots } from "./request-slots.js";

describe("request slots", () => {
  it("lets NSTART messages to a peer go at once and the next ones in order as places are given back", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 10, maxTotal: 10 });
    const order: string[] = [];
    const first = await slots.open("p").place();
    const other = await slots.open("q").place();
    void slots
      .open("p")
      .place()
      .then((release) => (order.push("second"), release));
    void slots
      .open("p")
      .place()
      .then((release) => order.push("third") && release());
    await tick();
    expect(order).toEqual([]);
    first();
    first(); // a second release frees nothing more
    await tick();
    expect(order).toEqual(["second"]);
    other();
    expect(slots.size).toBe(4);
  });

  it("gives a place back without closing the request: an acknowledged request lets the next one go", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 10, maxTotal: 10 });
    const acknowledged = slots.open("p");
    const release = await acknowledged.place();
    let next = false;
    void slots
      .open("p")
      .place()
      .then(() => (next = true));
    release();
    await tick();
    expect(next).toBe(true);
    expect(slots.size).toBe(2);
    acknowledged.close();
    acknowledged.close();
    expect(slots.size).toBe(1);
  });

  it("refuses busy past the per-peer and total bounds, counting open requests with or without a place", () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 2, maxTotal: 3 });
    const first = slots.open("p");
    void first.place().then((release) => release()); // its place given back: it still counts until closed
    slots.open("p");
    expect(() => slots.open("p")).toThrow(expect.objectContaining({ code: "busy" }) as Error);
    slots.open("q");
    expect(() => slots.open("r")).toThrow(/requests in all/);
    expect(slots.size).toBe(3);
    first.close();
    expect(() => slots.open("p")).not.toThrow();
  });

  it("refuses the messages waiting for a place when cleared", async () => {
    const slots = new RequestSlots({ nstart: 1, maxPerPeer: 5, maxTotal: 5 });
    await slots.open("p").place();
    const waiting = slots.open("p");
    const place = waiting.place();
    slots.clear(new CoapError("closed", "closing"));
    await expect(place).rejects.toMatchObject({ code: "closed" });
    waiting.close();
    expect(slots.size).toBe(1);
  });
});
