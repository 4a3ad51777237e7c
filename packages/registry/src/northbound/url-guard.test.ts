import { describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { checkWebhookUrl } from "./url-guard.js";

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RegistryError);
  return (err as RegistryError).errors?.url ?? "";
};

describe("webhook URL guard", () => {
  it("refuses IPv6 literals that embed or denote a non-public address, however the URL spells them", async () => {
    const never = async () => [] as string[];
    for (const [url, host] of [
      ["http://[::127.0.0.1]/x", "::7f00:1"],
      ["http://[::ffff:0:127.0.0.1]/x", "::ffff:0:7f00:1"],
      ["http://[::ffff:169.254.169.254]/x", "::ffff:a9fe:a9fe"],
      ["http://[64:ff9b::7f00:1]/x", "64:ff9b::7f00:1"],
      ["http://[2001:db8::1]/x", "2001:db8::1"],
      ["http://[fd00::1]:8080/x", "fd00::1"],
      ["http://[fe80::1]/x", "fe80::1"],
    ] as const)
      expect(await refusal(checkWebhookUrl(url, false, never)), url).toContain(`resolves to ${host},`);
    expect((await checkWebhookUrl("http://[64:ff9b::808:808]/x", false, never)).hostname).toBe("[64:ff9b::808:808]");
  });

  it("refuses a host when any one of its resolved addresses is private, naming url", async () => {
    const resolve = async () => ["93.184.216.34", "10.0.0.5"];
    expect(await refusal(checkWebhookUrl("https://mixed.example/hook", false, resolve))).toMatch(/10\.0\.0\.5/);
    const ok = await checkWebhookUrl("https://public.example/hook", false, async () => ["93.184.216.34"]);
    expect(ok.hostname).toBe("public.example");
  });

  it("refuses IP literals, non-http schemes, credentials and unresolvable hosts", async () => {
    const never = async () => {
      throw new Error("ENOTFOUND");
    };
    expect(await refusal(checkWebhookUrl("http://127.0.0.1:9/x", false, never))).toMatch(/127\.0\.0\.1/);
    expect(await refusal(checkWebhookUrl("http://[::1]/x", false, never))).toMatch(/::1/);
    expect(await refusal(checkWebhookUrl("ftp://example.com/x", false, never))).toMatch(/http/);
    expect(await refusal(checkWebhookUrl("https://u:p@example.com/x", false, never))).toMatch(/credentials/);
    expect(await refusal(checkWebhookUrl("https://nowhere.invalid/x", false, never))).toMatch(/does not resolve/);
  });

  it("lets private targets through when the service admin allows them", async () => {
    const url = await checkWebhookUrl("http://127.0.0.1:8080/x", true, async () => []);
    expect(url.port).toBe("8080");
  });
});
