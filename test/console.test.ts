import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConsole, type ConsoleSession } from "./console-browser.js";
import type { TestFleet } from "./helpers.js";

/**
 * The web console in a real browser (Debian's chromium, driven by playwright-core) against a real fleet: log in,
 * create a product and a device through the forms, watch the device go online when mosquitto connects with the
 * credentials the page shows, see a published value on its chart, send a command and see it delivered, import a CSV
 * with a bad row. Screenshots of the main pages go to test/artifacts/console/ (gitignored).
 */
let c: ConsoleSession;
let t: TestFleet;
let page: Page;
let base: string;

beforeAll(async () => {
  c = await openConsole("console");
  ({ t, page, base } = c);
}, 120_000);

afterAll(async () => {
  await c?.close();
});

const shot = (name: string) => c.shot(name);

function run(cmd: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => spawn(cmd, args, { stdio: "ignore" }).on("exit", resolve));
}

/** Requests of the page that read `path` again (its polling), among those since the last `c.requests()`. */
const reads = (path: string) => c.requests().filter((r) => r.startsWith(`GET /api/v1${path}`));

describe("the web console", () => {
  it("logs in, creates and edits a product and a device, sees it go online, charts its value and delivers a command", async () => {
    await page.goto(`${base}/console/`);
    await page.fill("input[name=username]", "admin");
    await page.fill("input[name=password]", "wrong-password");
    await page.click("button[type=submit]");
    await page.getByRole("alert").waitFor();
    await page.fill("input[name=password]", "e2e-admin-pass");
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    // The token lives in the page's memory only: no storage, no cookie.
    expect(await page.evaluate("[Object.keys(localStorage), Object.keys(sessionStorage), document.cookie]")).toEqual([
      [],
      [],
      "",
    ]);

    // Product through the form: an empty name shows the API's error beside the field.
    await c.go("/products/new");
    await page.click("[data-testid=product-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=productName]").textContent()).toMatch(/required/);
    await page.fill("input[name=productName]", "Console meters");
    await page.selectOption("select[name=cloudProtocol]", "1");
    await page.click("[data-testid=product-form] button[type=submit]");
    const productID = (await page.locator("[data-testid=productID]").textContent())!;
    expect(productID).toMatch(/\S+/);
    const productIntID = Number(page.url().split("/").pop());
    expect(productIntID).toBeGreaterThan(0);
    // Edit it: a name cleared is the API's error beside the field; a new description is saved.
    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await page.fill("[data-testid=product-form] input[name=productName]", "");
    await page.click("[data-testid=product-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=productName]").textContent()).toMatch(/required/);
    await page.fill("[data-testid=product-form] input[name=productName]", "Console meters");
    await page.fill("[data-testid=product-form] textarea[name=description]", "edited in the browser");
    await page.click("[data-testid=product-form] button[type=submit]");
    await expect.poll(() => page.getByTestId("product-description").textContent()).toBe("edited in the browser");
    expect((await t.api("GET", `/products/${productIntID}`)).body.description).toBe("edited in the browser");

    // A data point and a JSON stream on telemetry/# through the product page's forms, so published values are charted.
    const pointForm = page.getByTestId("data-point-form");
    await pointForm.locator("input[name=dataPointName]").fill("temp");
    await pointForm.locator("input[name=dataPointID]").fill("temp");
    await pointForm.locator("select[name=pointDataType]").selectOption("1");
    await pointForm.locator("button[type=submit]").click();
    await page.getByTestId("data-point-table").getByRole("cell", { name: "temp", exact: true }).first().waitFor();
    const streamForm = page.getByTestId("data-stream-form");
    await streamForm.locator("input[name=streamName]").fill("telemetry");
    await streamForm.locator("input[name=topic]").fill("telemetry/#");
    await streamForm.locator("select[name=dataPoints]").selectOption({ label: "temp" });
    await streamForm.locator("button[type=submit]").click();
    await page.getByRole("cell", { name: "telemetry/#" }).waitFor();
    const streams = await t.api("GET", `/data_streams?productID=${productID}`);
    expect(streams.body.items).toHaveLength(1);
    const created = await t.api("GET", `/data_streams/${streams.body.items[0].id}`);
    expect([created.body.topic, created.body.dataPointNames]).toEqual(["telemetry/#", ["temp"]]);
    // A formula metric on that data point, through the same page.
    const metricForm = page.getByTestId("metric-form");
    await metricForm.locator("input[name=metricName]").fill("double temp");
    await metricForm.locator("select[name=dataPointIntID]").selectOption({ label: "temp" });
    await metricForm.locator("input[name=expressions]").fill("x * 2");
    await metricForm.locator("button[type=submit]").click();
    await page.getByTestId("metric-table").getByRole("cell", { name: "double temp" }).waitFor();
    await shot("product");

    // Device through the form, then edited: an empty name is refused beside the field.
    await c.go("/devices/new");
    await page.fill("input[name=deviceName]", "console-meter-0");
    await page.selectOption("select[name=productID]", productID);
    await page.click("[data-testid=device-form] button[type=submit]");
    await page.getByRole("heading", { name: /console-meter-0/ }).waitFor();
    const deviceIntID = Number(page.url().split("/").pop());
    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await page.fill("[data-testid=device-form] input[name=deviceName]", "");
    await page.click("[data-testid=device-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=deviceName]").textContent()).toMatch(/\S/);
    await shot("device-edit-error");
    await page.fill("[data-testid=device-form] input[name=deviceName]", "console-meter-1");
    await page.click("[data-testid=device-form] button[type=submit]");
    await page.getByRole("heading", { name: /console-meter-1/ }).waitFor();
    expect((await t.api("GET", `/devices/${deviceIntID}`)).body.deviceName).toBe("console-meter-1");
    expect(await page.getByTestId("device-status").textContent()).toMatch(/offline/i);
    const creds: Record<string, string> = {};
    for (const k of ["deviceID", "deviceUsername", "token"]) {
      creds[k] = (await page.locator(`[data-cred=${k}]`).textContent())!;
    }
    expect(await page.getByTestId("connect-command").textContent()).toContain(`-u '${creds.deviceUsername}'`);

    // A real MQTT client connects with the credentials shown: the page turns online from the live stream, without
    // reading the device again.
    c.requests();
    const sub = c.subscribeAsDevice(creds);
    await expect
      .poll(() => page.getByTestId("device-status").textContent(), { timeout: 15_000, interval: 250 })
      .toMatch(/online/i);
    expect(reads(`/devices/${deviceIntID}`)).toEqual([]);

    // A command from the command box reaches the device; its status becomes delivered (2) from the stream's
    // command_result, the control logs not polled.
    await page.fill("[data-testid=command-form] input[name=payload]", "hello-console");
    await page.click("[data-testid=command-form] button[type=submit]");
    await expect
      .poll(() => page.getByTestId("publish-status").getAttribute("data-code"), { timeout: 15_000, interval: 250 })
      .toBe("2");
    await expect.poll(sub.output, { timeout: 5000 }).toContain("inbox hello-console");
    // The control log read once, after the send, to list the new command; no polling for its status.
    expect(reads(`/devices/${deviceIntID}/control_logs`).length).toBeLessThanOrEqual(1);
    await shot("device-command");
    // The device hangs up: the page shows it offline.
    sub.stop();
    await expect
      .poll(() => page.getByTestId("device-status").textContent(), { timeout: 15_000, interval: 250 })
      .toMatch(/offline/i);

    // A value published (mosquitto_pub, connecting on its own) appears in the latest values and on the chart, from
    // the stream's decoded event: original_data is not read again.
    c.requests();
    expect(await run("mosquitto_pub", [...sub.args, "-t", "telemetry/room", "-q", "1", "-m", '{"temp": 21.5}'])).toBe(
      0,
    );
    await expect
      .poll(
        () =>
          page
            .locator("[data-latest=temp]")
            .textContent()
            .catch(() => ""),
        { timeout: 15_000, interval: 250 },
      )
      .toBe("21.5");
    await page.getByTestId("chart-temp").locator("canvas").waitFor();
    expect(await page.getByTestId("chart-temp").getAttribute("data-points")).toBe("1");
    await expect.poll(() => page.locator("[data-testid=events] tbody tr").first().textContent()).toContain("21.5");
    expect(reads("/original_data")).toEqual([]);
    expect(reads(`/devices/${deviceIntID}/events`)).toEqual([]);
    await shot("device-online");

    // The dashboard and lists show it.
    await c.go("/");
    await expect.poll(() => page.locator("[data-testid=tile-total] b").textContent(), { timeout: 10_000 }).toBe("1");
    // The one uplink sent above, seconds ago.
    expect(await page.locator("[data-testid=tile-uplinks] b").textContent()).toBe("1");
    // Another uplink reaches the dashboard through the stream, without reading the events again.
    c.requests();
    expect(await run("mosquitto_pub", [...sub.args, "-t", "telemetry/room", "-q", "1", "-m", '{"temp": 22}'])).toBe(0);
    await expect.poll(() => page.locator("[data-testid=tile-uplinks] b").textContent(), { timeout: 10_000 }).toBe("2");
    expect(reads("/device_events")).toEqual([]);
    await shot("dashboard");
    await c.go("/devices");
    await page.fill("input[name=deviceName_like]", "console-meter");
    await expect.poll(() => page.locator("[data-testid=device-table] tbody tr").count()).toBe(1);
    await page.selectOption("select[name=productID]", productID);
    await expect.poll(() => page.locator("[data-testid=device-table] tbody tr").count()).toBe(1);
    await shot("devices");
    await c.go(`/products/${productIntID}`);
    await page.getByRole("cell", { name: "telemetry/#" }).waitFor();
  }, 90_000);

  it("imports a CSV with a bad row, showing progress and the row's error", async () => {
    const product = await t.api("POST", "/products", { productName: "Import target", cloudProtocol: 1 });
    const productID = product.body.productID as string;
    const csv = join(c.dir, "devices.csv");
    writeFileSync(
      csv,
      `deviceName,product,authType,deviceType,upLinkSystem\nimported-1,${productID},1,1,1\nimported-2,nope,1,1,1\n`,
    );
    await c.go("/transfer");
    await page.setInputFiles("input[name=file]", csv);
    await page.click("[data-testid=import-start]");
    await page.getByTestId("import-result").waitFor();
    const summary = (await page.getByTestId("import-result").textContent())!;
    expect(await page.getByTestId("import-created").textContent(), summary).toBe("1");
    expect(await page.getByTestId("import-failed").textContent()).toBe("1");
    const row = page.locator("[data-testid=import-errors] tbody tr");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator("td").first().textContent()).toBe("3");
    expect(await row.textContent()).toContain("product");
    expect(await page.getByTestId("progress").getAttribute("data-status")).toBe("3");
    await shot("import");
    // Export: the task runs and its file is downloaded.
    const download = page.waitForEvent("download");
    await page.click("[data-testid=export-start]");
    expect((await download).suggestedFilename()).toMatch(/\.csv$/);
  }, 30_000);

  it("creates a group, a policy and a certificate through their forms, edits them and lists them", async () => {
    const product = await t.api("POST", "/products", { productName: "Grouped meters", cloudProtocol: 1 });
    const member = await t.newDevice(product.body.productID, "group-member-1");
    await c.go("/groups/new");
    await page.fill("[data-testid=group-form] input[name=groupName]", "Console group");
    await page.selectOption("[data-testid=group-form] select[name=productID]", product.body.productID);
    await page.fill("[data-testid=group-form] textarea[name=description]", "made in the browser");
    await page.click("[data-testid=group-form] button[type=submit]");
    await page.getByRole("heading", { name: /Console group/ }).waitFor();
    // A device of the product can join it, and the group page lists it as a member.
    const candidate = page.locator("[data-testid=member-form] select[name=ids] option", { hasText: "group-member-1" });
    await expect.poll(() => candidate.count()).toBe(1);
    await page.selectOption("[data-testid=member-form] select[name=ids]", { label: "group-member-1" });
    await page.click("[data-testid=member-form] button[type=submit]");
    await page.getByTestId("member-table").getByRole("link", { name: "group-member-1" }).waitFor();
    // Once a member, it is no longer offered; a group command to it runs as a task to its end.
    await expect.poll(() => candidate.count()).toBe(0);
    await page.fill("[data-testid=group-publish-form] input[name=payload]", "to-the-group");
    await page.click("[data-testid=group-publish-form] button[type=submit]");
    await expect
      .poll(() => page.getByTestId("group-task").getAttribute("data-status"), { timeout: 10_000 })
      .toMatch(/^[34]$/);
    await page.getByTestId("group-control-logs").getByRole("cell", { name: "to-the-group" }).waitFor();
    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await page.fill("[data-testid=group-form] textarea[name=description]", "edited");
    await page.click("[data-testid=group-form] button[type=submit]");
    await expect.poll(() => page.getByTestId("group-description").textContent()).toBe("edited");
    await c.shot("group");

    await c.go("/policies/new");
    await page.fill("[data-testid=policy-form] input[name=name]", "no-admin-topics");
    await page.click("[data-testid=policy-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=topic]").count()).toBe(1);
    await page.fill("[data-testid=policy-form] input[name=topic]", "admin/#");
    await page.selectOption("[data-testid=policy-form] select[name=allow]", "0");
    await page.click("[data-testid=policy-form] button[type=submit]");
    await page.getByRole("cell", { name: "admin/#" }).waitFor();
    // Edit from the list: the new topic is listed.
    await page.locator("[data-testid=policy-table] tbody tr").first().getByRole("link", { name: "Edit" }).click();
    await page.fill("[data-testid=policy-form] input[name=topic]", "admin/secret/#");
    await page.click("[data-testid=policy-form] button[type=submit]");
    await page.getByRole("cell", { name: "admin/secret/#" }).waitFor();
    await c.shot("policies");
    // Bound to a device on its page, beside a proxy subscription added there.
    await c.go(`/devices/${member.id}`);
    await page.selectOption("[data-testid=device-policy-form] select[name=ids]", { label: "no-admin-topics" });
    await page.click("[data-testid=device-policy-form] button[type=submit]");
    await page.getByTestId("device-policy-table").getByRole("cell", { name: "admin/secret/#" }).waitFor();
    await page.fill("[data-testid=subscription-form] input[name=topic]", "cmd/extra");
    await page.click("[data-testid=subscription-form] button[type=submit]");
    await page.getByTestId("subscription-table").getByRole("cell", { name: "cmd/extra" }).waitFor();
    const bound = await t.api("GET", `/devices/${member.id}/policies`);
    expect(bound.body.items.map((p: { name: string }) => p.name)).toEqual(["no-admin-topics"]);

    await c.go("/certs");
    await page.getByRole("link", { name: "New certificate" }).click();
    await page.fill("[data-testid=cert-form] input[name=name]", "console-cert");
    const download = page.waitForEvent("download");
    await page.click("[data-testid=cert-form] button[type=submit]");
    expect((await download).suggestedFilename()).toMatch(/\.crt$/);
    await page.getByRole("cell", { name: "console-cert" }).waitFor();
    const again = page.waitForEvent("download");
    await page.locator("[data-testid=cert-table] [data-download]").first().click();
    expect((await again).suggestedFilename()).toMatch(/\.(crt|key)$/);
    await c.shot("certs");
    const certs = await t.api("GET", "/certs?name_like=console-cert");
    expect(certs.body.meta.count).toBe(1);
  }, 30_000);

  it("creates a gateway, a device schedule, a user and an application key through the shared form", async () => {
    const product = await t.api("POST", "/products", { productName: "Gateway products", cloudProtocol: 1 });
    await t.newDevice(product.body.productID, "scheduled-1");

    await c.go("/gateways/new");
    await page.fill("[data-testid=gateway-form] input[name=gatewayName]", "console-gateway");
    await page.selectOption("[data-testid=gateway-form] select[name=productID]", product.body.productID);
    await page.fill("[data-testid=gateway-form] input[name=mac]", "not-a-mac");
    await page.click("[data-testid=gateway-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=mac]").count()).toBe(1);
    await page.fill("[data-testid=gateway-form] input[name=mac]", "00:1A:2B:3C:4D:5E");
    await page.click("[data-testid=gateway-form] button[type=submit]");
    await page.getByRole("cell", { name: "console-gateway" }).waitFor();
    await c.shot("gateways");

    await c.go("/schedules/new");
    await page.selectOption("[data-testid=schedule-form] select[name=deviceID]", { label: "scheduled-1" });
    await page.fill("[data-testid=schedule-form] input[name=payload]", "tick");
    await page.fill("[data-testid=schedule-form] input[name=scheduleName]", "hourly tick");
    await page.fill("[data-testid=schedule-form] input[name=IntervalMinute]", "60");
    await page.click("[data-testid=schedule-form] button[type=submit]");
    await page.getByRole("cell", { name: "hourly tick" }).waitFor();
    await c.shot("schedules");

    await c.go("/users/new");
    await page.fill("[data-testid=user-form] input[name=username]", "console-operator");
    await page.fill("[data-testid=user-form] input[name=password]", "short");
    await page.click("[data-testid=user-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=password]").textContent()).toMatch(/8/);
    await page.fill("[data-testid=user-form] input[name=password]", "long-enough-password");
    await page.click("[data-testid=user-form] button[type=submit]");
    await page.getByRole("cell", { name: "console-operator" }).waitFor();
    await c.shot("users");

    await c.go("/applications/new");
    await page.fill("[data-testid=application-form] input[name=appName]", "console-app");
    await page.click("[data-testid=application-form] button[type=submit]");
    const appToken = (await page.locator("[data-cred=appToken]").textContent())!;
    expect(appToken.length).toBeGreaterThan(10);
    await c.go("/applications");
    await page.getByRole("cell", { name: "console-app" }).waitFor();
    await c.shot("applications");
  }, 30_000);

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

  it("logs out: the login form is back and a reload does not bring the session back", async () => {
    await page.click("[data-testid=logout]");
    await page.locator("input[name=password]").waitFor();
    await page.reload();
    await page.locator("input[name=password]").waitFor();
  });
});
