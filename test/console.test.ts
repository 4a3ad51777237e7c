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

describe("the web console", () => {
  it("logs in, creates a product and a device, sees it go online, charts its value and delivers a command", async () => {
    await page.goto(`${base}/console/`);
    await page.fill("input[name=username]", "admin");
    await page.fill("input[name=password]", "wrong-password");
    await page.click("button[type=submit]");
    await page.getByRole("alert").waitFor();
    await page.fill("input[name=password]", "e2e-admin-pass");
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    // The token is kept for this tab only, never in localStorage.
    expect(await page.evaluate("Object.keys(localStorage)")).toEqual([]);
    expect(await page.evaluate("sessionStorage.getItem('iot-console-token')")).toMatch(/\S{20,}/);

    // Product through the form: an empty name shows the API's error beside the field.
    await page.goto(`${base}/console/products/new`);
    await page.click("[data-testid=product-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=productName]").textContent()).toMatch(/required/);
    await page.fill("input[name=productName]", "Console meters");
    await page.selectOption("select[name=cloudProtocol]", "1");
    await page.click("[data-testid=product-form] button[type=submit]");
    const productID = (await page.locator("[data-testid=productID]").textContent())!;
    expect(productID).toMatch(/\S+/);
    const productIntID = Number(page.url().split("/").pop());
    expect(productIntID).toBeGreaterThan(0);
    // A data point and a JSON stream on telemetry/# through the product page's forms, so published values are charted.
    const pointForm = page.getByTestId("data-point-form");
    await pointForm.locator("input[name=dataPointName]").fill("temp");
    await pointForm.locator("input[name=dataPointID]").fill("temp");
    await pointForm.locator("select[name=pointDataType]").selectOption("1");
    await pointForm.locator("button[type=submit]").click();
    await page.getByRole("cell", { name: "temp", exact: true }).first().waitFor();
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

    // Device through the form.
    await page.goto(`${base}/console/devices/new`);
    await page.fill("input[name=deviceName]", "console-meter-1");
    await page.selectOption("select[name=productID]", productID);
    await page.click("[data-testid=device-form] button[type=submit]");
    await page.getByRole("heading", { name: /console-meter-1/ }).waitFor();
    expect(await page.getByTestId("device-status").textContent()).toMatch(/offline/i);
    const creds: Record<string, string> = {};
    for (const k of ["deviceID", "deviceUsername", "token"]) {
      creds[k] = (await page.locator(`[data-cred=${k}]`).textContent())!;
    }
    expect(await page.getByTestId("connect-command").textContent()).toContain(`-u '${creds.deviceUsername}'`);

    // A real MQTT client connects with the credentials shown: the page turns online without a reload.
    const sub = c.subscribeAsDevice(creds);
    await expect
      .poll(() => page.getByTestId("device-status").textContent(), { timeout: 15_000, interval: 250 })
      .toMatch(/online/i);

    // A command from the command box reaches the device and its status becomes delivered (2).
    await page.fill("[data-testid=command-form] input[name=payload]", "hello-console");
    await page.click("[data-testid=command-form] button[type=submit]");
    await expect
      .poll(() => page.getByTestId("publish-status").getAttribute("data-code"), { timeout: 15_000, interval: 250 })
      .toBe("2");
    await expect.poll(sub.output, { timeout: 5000 }).toContain("inbox hello-console");
    await shot("device-command");
    // The device hangs up: the page shows it offline.
    sub.stop();
    await expect
      .poll(() => page.getByTestId("device-status").textContent(), { timeout: 15_000, interval: 250 })
      .toMatch(/offline/i);

    // A value published (mosquitto_pub, connecting on its own) appears in the latest values and on the chart.
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
    await shot("device-online");

    // The dashboard and lists show it.
    await page.goto(`${base}/console/`);
    await expect.poll(() => page.locator("[data-testid=tile-total] b").textContent(), { timeout: 10_000 }).toBe("1");
    // The one uplink sent above, seconds ago.
    expect(await page.locator("[data-testid=tile-uplinks] b").textContent()).toBe("1");
    await shot("dashboard");
    await page.goto(`${base}/console/devices`);
    await page.fill("input[name=deviceName_like]", "console-meter");
    await expect.poll(() => page.locator("[data-testid=device-table] tbody tr").count()).toBe(1);
    await shot("devices");
    await page.goto(`${base}/console/products/${productIntID}`);
    await page.getByRole("cell", { name: "telemetry/#" }).waitFor();
    await shot("product");
  }, 60_000);

  it("imports a CSV with a bad row, showing progress and the row's error", async () => {
    const product = await t.api("POST", "/products", { productName: "Import target", cloudProtocol: 1 });
    const productID = product.body.productID as string;
    await c.login();
    const csv = join(c.dir, "devices.csv");
    writeFileSync(
      csv,
      `deviceName,product,authType,deviceType,upLinkSystem\nimported-1,${productID},1,1,1\nimported-2,nope,1,1,1\n`,
    );
    await page.goto(`${base}/console/transfer`);
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
  }, 30_000);

  it("creates a group, a policy and a certificate through their forms and lists them", async () => {
    const product = await t.api("POST", "/products", { productName: "Grouped meters", cloudProtocol: 1 });
    await t.newDevice(product.body.productID, "group-member-1");
    await c.login();
    await page.goto(`${base}/console/groups/new`);
    await page.fill("[data-testid=group-form] input[name=groupName]", "Console group");
    await page.selectOption("[data-testid=group-form] select[name=productID]", product.body.productID);
    await page.fill("[data-testid=group-form] textarea[name=description]", "made in the browser");
    await page.click("[data-testid=group-form] button[type=submit]");
    await page.getByRole("heading", { name: /Console group/ }).waitFor();
    // A device of the product can join it, and the group page lists it as a member.
    const candidate = page.locator("select[name=member] option", { hasText: "group-member-1" });
    await expect.poll(() => candidate.count()).toBe(1);
    await page.selectOption("select[name=member]", { label: "group-member-1" });
    await page.getByRole("button", { name: "Add devices" }).click();
    await page.getByRole("link", { name: "group-member-1" }).waitFor();
    await c.shot("group");

    await page.goto(`${base}/console/policies/new`);
    await page.fill("[data-testid=policy-form] input[name=name]", "no-admin-topics");
    await page.click("[data-testid=policy-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=topic]").count()).toBe(1);
    await page.fill("[data-testid=policy-form] input[name=topic]", "admin/#");
    await page.selectOption("[data-testid=policy-form] select[name=allow]", "0");
    await page.click("[data-testid=policy-form] button[type=submit]");
    await page.getByRole("cell", { name: "admin/#" }).waitFor();
    await c.shot("policies");

    await page.goto(`${base}/console/certs`);
    await page.getByRole("link", { name: "New certificate" }).click();
    await page.fill("[data-testid=cert-form] input[name=name]", "console-cert");
    const download = page.waitForEvent("download");
    await page.click("[data-testid=cert-form] button[type=submit]");
    expect((await download).suggestedFilename()).toMatch(/\.crt$/);
    await page.getByRole("cell", { name: "console-cert" }).waitFor();
    await c.shot("certs");
    const certs = await t.api("GET", "/certs?name_like=console-cert");
    expect(certs.body.meta.count).toBe(1);
  }, 30_000);

  it("logs out: the token is gone and the login form is back", async () => {
    await page.click("[data-testid=logout]");
    await page.locator("input[name=password]").waitFor();
    expect(await page.evaluate("sessionStorage.getItem('iot-console-token')")).toBeNull();
  });
});
