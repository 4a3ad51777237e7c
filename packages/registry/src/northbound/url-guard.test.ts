import { describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { checkWebhookUrl, isPrivateAddress } from "./url-guard.js";

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RegistryError);
  return (err as RegistryError).errors?.url ?? "";
};

describe("webhook URL guard", () => {
  it("calls loopback, private, link-local, CGNAT and mapped addresses private and public ones not", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0"])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::10.0.0.1"])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
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
