/**
 * The web console's main journey, as one test: log in, create and edit a product and a device through the forms, see
 * the device go online when mosquitto connects with the credentials the page shows, chart a published value and
 * deliver a command, all from the live stream rather than by polling.
 */
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { base, c, page, reads, shot, t } from "./console-session.js";

function run(cmd: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => spawn(cmd, args, { stdio: "ignore" }).on("exit", resolve));
}

/** Registers the journey's test (in console.test.ts, on its shared page). */
export function deviceJourneyTests(): void {
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
}
