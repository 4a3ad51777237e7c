/**
 * The web console's other forms: a CSV import with a bad row and an export; groups, policies and certificates;
 * gateways, schedules, users and application keys through the shared form.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { c, page, shot, t } from "./console-session.js";

/** Registers the forms' tests (in console.test.ts, on its shared page). */
export function formTests(): void {
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
}
