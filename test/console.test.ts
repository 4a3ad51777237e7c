/**
 * The web console in a real browser (Debian's chromium, driven by playwright-core) against a real fleet: log in,
 * create a product and a device through the forms, watch the device go online when mosquitto connects with the
 * credentials the page shows, see a published value on its chart, send a command and see it delivered, import a CSV
 * with a bad row. Screenshots of the main pages go to test/artifacts/console/ (gitignored).
 */
import { describe, it } from "vitest";
import { deviceJourneyTests } from "./console-device-journey.js";
import { formTests } from "./console-forms.js";
import { liveStreamTests } from "./console-live-stream.js";
import { page, useConsoleSession } from "./console-session.js";

// One fleet and browser for every test below, which run in this order on one page.
useConsoleSession();

describe("the web console", () => {
  deviceJourneyTests();
  formTests();
  liveStreamTests();

  it("logs out: the login form is back and a reload does not bring the session back", async () => {
    await page.click("[data-testid=logout]");
    await page.locator("input[name=password]").waitFor();
    await page.reload();
    await page.locator("input[name=password]").waitFor();
  });
});
