import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConsole, type ConsoleSession } from "./console-browser.js";

/**
 * The web console on a Form 2 deployment (`IOT_API_FORM=2`): its forms send Form 2 bodies (a product's description
 * is required, devices have Form 2 types), and it reads Form 2 records (`status` rather than `deviceStatus`, the
 * broker addresses of the device detail) in Chinese when the browser asks for it.
 */
let c: ConsoleSession;
let page: Page;

beforeAll(async () => {
  c = await openConsole("console-form2", { IOT_API_FORM: "2" }, "zh-CN");
  page = c.page;
}, 120_000);

afterAll(async () => {
  await c?.close();
});

describe("the web console on Form 2", () => {
  it("creates a product and a device with Form 2 bodies and shows the device online while mosquitto holds it", async () => {
    await c.login();
    // navigator.language is zh-CN: the labels are Chinese.
    await page.getByRole("heading", { name: "概览" }).waitFor();
    const nav = (await page.locator("nav.side").textContent())!;
    for (const label of ["设备", "网关", "指标", "设备定时任务", "用户", "应用"]) expect(nav).toContain(label);
    await expect.poll(() => page.locator("[data-testid=tile-total] b").textContent()).toBe("0");
    await c.shot("dashboard-zh");
    await c.go("/products/new");
    // Form 2 products have no protocol to choose, and a description is required: the API's error shows beside it.
    expect(await page.locator("select[name=cloudProtocol]").count()).toBe(0);
    await page.fill("input[name=productName]", "Form 2 meters");
    await page.click("[data-testid=product-form] button[type=submit]");
    await expect.poll(() => page.locator("[data-field-error=description]").textContent()).toMatch(/required/);
    await page.fill("textarea[name=description]", "meters of a Form 2 site");
    await page.click("[data-testid=product-form] button[type=submit]");
    const productID = (await page.locator("[data-testid=productID]").textContent())!;

    await c.go("/devices/new");
    await page.fill("input[name=deviceName]", "form2-meter");
    await page.selectOption("select[name=productID]", productID);
    await page.selectOption("select[name=deviceType]", "0");
    await page.click("[data-testid=device-form] button[type=submit]");
    await page.getByRole("heading", { name: /form2-meter/ }).waitFor();
    // Edited with the Form 2 edit body (a changed description only), in Chinese.
    await page.getByRole("link", { name: "编辑", exact: true }).click();
    await page.getByRole("heading", { name: "编辑设备" }).waitFor();
    await page.fill("[data-testid=device-form] textarea[name=description]", "二号表");
    await page.click("[data-testid=device-form] button[type=submit]");
    await expect.poll(() => page.getByTestId("device-description").textContent()).toBe("二号表");
    const creds: Record<string, string> = {};
    for (const k of ["deviceID", "deviceUsername", "token"]) {
      creds[k] = (await page.locator(`[data-cred=${k}]`).textContent())!;
    }
    expect(creds.deviceID).toHaveLength(36);
    const statusBadge = page.locator("h1 [data-status]");
    expect(await statusBadge.getAttribute("data-status")).toBe("0");
    const sub = c.subscribeAsDevice(creds);
    await expect.poll(() => statusBadge.getAttribute("data-status"), { timeout: 15_000, interval: 250 }).toBe("1");
    expect(await page.getByTestId("device-status").textContent()).toBe("在线");
    await page.fill("[data-testid=command-form] input[name=payload]", "form2-command");
    await page.click("[data-testid=command-form] button[type=submit]");
    await expect.poll(sub.output, { timeout: 15_000 }).toContain("inbox form2-command");
    await expect
      .poll(() => page.getByTestId("publish-status").textContent(), { timeout: 15_000, interval: 250 })
      .toBe("下发成功");
    await c.shot("device");

    // The device list reads Form 2's status field too.
    await c.go("/devices");
    await expect
      .poll(() => page.locator("[data-testid=device-table] tbody [data-status]").first().getAttribute("data-status"))
      .toBe("1");
    await c.shot("devices");
    await c.go("/schedules/new");
    await page.getByRole("heading", { name: "新建定时任务" }).waitFor();
    await c.shot("schedule-form");
    // On the dashboard the device counts online; when it hangs up the count falls from the live stream's event,
    // without the adapters' health being read again.
    await c.go("/");
    await expect.poll(() => page.locator("[data-testid=tile-online] b").textContent()).toBe("1");
    c.requests();
    sub.stop();
    await expect
      .poll(() => page.locator("[data-testid=tile-online] b").textContent(), { timeout: 15_000, interval: 250 })
      .toBe("0");
    expect(c.requests().filter((r) => r.startsWith("GET /api/v1/health"))).toEqual([]);
  }, 45_000);
});
