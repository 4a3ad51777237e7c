/**
 * How the web console applies its live stream (routed, so the test writes what the stream says): events that arrive
 * in one read, and resuming after the last event read once the stream is opened again.
 */
import { expect, it } from "vitest";
import { c, page, t } from "./console-session.js";

/** Registers the live stream's tests (in console.test.ts, on its shared page). */
export function liveStreamTests(): void {
  it("applies a device's live events that arrive in one read, none undoing another", async () => {
    const product = await t.api("POST", "/products", { productName: "Burst meters", cloudProtocol: 1 });
    const device = await t.newDevice(product.body.productID, "burst-meter-1");
    const frame = (id: number, type: string, data: Record<string, unknown>) =>
      `id: ${id}\ndata: ${JSON.stringify({ id, type, productID: product.body.productID, deviceID: device.deviceID, time: Date.now(), data })}\n\n`;
    // The page's stream, routed: empty at first, then the device's online, uplink and offline frames in one body, so
    // the page reads them in one chunk and dispatches them before it renders again. Each routed stream ends at once
    // and the page opens it again within 5 s, reloading the device's lists: those reloads are held once the lists
    // have loaded, so that what shows is that load plus the live events.
    let body = ": nothing yet\n\n";
    let hold = false;
    const lists = new RegExp(`/api/v1/devices/${device.id}/(events|connect_logs|control_logs)`);
    await page.route("**/api/v1/stream", (route) =>
      route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body }),
    );
    await page.route(lists, (route) => (hold ? undefined : route.continue()));
    try {
      // Logged out and in again, the page opens its stream anew, through the route.
      await page.click("[data-testid=logout]");
      await page.locator("input[name=password]").waitFor();
      await c.go(`/devices/${device.id}`);
      // The lists have loaded (an empty list shows no table, only its text).
      await expect.poll(() => page.getByText(/Loading/).count(), { timeout: 15_000, interval: 250 }).toBe(0);
      hold = true;
      body =
        frame(9_000_001, "online", { ip: "10.9.9.9" }) +
        frame(9_000_002, "uplink", { topic: "burst/t", payload: Buffer.from("burst-value").toString("base64") }) +
        frame(9_000_003, "offline", {});
      await expect
        .poll(() => page.locator("[data-testid=events]").textContent(), { timeout: 15_000, interval: 250 })
        .toContain("burst-value");
      const connects = (await page.locator("[data-testid=connect-logs]").textContent()) ?? "";
      expect(connects).toContain("10.9.9.9");
      expect(connects).toMatch(/offline/i);
    } finally {
      await page.unroute("**/api/v1/stream");
      await page.unroute(lists);
    }
  }, 60_000);

  it("resumes its reopened stream after the last event it read, and starts afresh after a new login", async () => {
    const product = await t.api("POST", "/products", { productName: "Resumed meters", cloudProtocol: 1 });
    const device = await t.newDevice(product.body.productID, "resumed-meter-1");
    const uplink = (id: number, text: string) =>
      `id: ${id}\ndata: ${JSON.stringify({ id, type: "uplink", productID: product.body.productID, deviceID: device.deviceID, time: Date.now(), data: { topic: "resumed/t", payload: Buffer.from(text).toString("base64") } })}\n\n`;
    // The page's stream, routed: each body ends at once and the page opens the stream again within 5 s; the event
    // id each opening asks to resume after is recorded. The device's lists are held once loaded, so that no reload
    // can put or take away what the frames add.
    let body = ": nothing yet\n\n";
    const resumedAfter: (string | undefined)[] = [];
    let hold = false;
    const lists = new RegExp(`/api/v1/devices/${device.id}/(events|connect_logs|control_logs)`);
    await page.route("**/api/v1/stream", (route) => {
      resumedAfter.push(route.request().headers()["last-event-id"]);
      return route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body });
    });
    await page.route(lists, (route) => (hold ? undefined : route.continue()));
    const events = () => page.locator("[data-testid=events]").textContent();
    try {
      // The earlier tests read real events: after logging out and in, the stream opens without an id all the same.
      await page.click("[data-testid=logout]");
      await page.locator("input[name=password]").waitFor();
      resumedAfter.length = 0;
      await c.go(`/devices/${device.id}`);
      await expect.poll(() => page.getByText(/Loading/).count(), { timeout: 15_000, interval: 250 }).toBe(0);
      hold = true;
      // Up to the opening that brings the first frame (the next one), no event was read: none asks to resume.
      const first = resumedAfter.length + 1;
      body = uplink(9_100_001, "resumed-first");
      await expect.poll(events, { timeout: 15_000, interval: 250 }).toContain("resumed-first");
      body = uplink(9_100_002, "resumed-second");
      await expect.poll(events, { timeout: 15_000, interval: 250 }).toContain("resumed-second");
      expect(resumedAfter.slice(0, first)).toEqual(resumedAfter.slice(0, first).map(() => undefined));
      // Once it had read the first frame, the page asked to resume after it.
      expect(resumedAfter.slice(first)).toContain("9100001");
    } finally {
      await page.unroute("**/api/v1/stream");
      await page.unroute(lists);
    }
  }, 60_000);
}
