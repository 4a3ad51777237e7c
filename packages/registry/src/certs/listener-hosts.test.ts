import { describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { checkListenerHosts } from "./listener-hosts.js";

function refusal(hostnames: string[], publicHost: string): RegistryError | undefined {
  try {
    checkListenerHosts(hostnames, publicHost);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryError);
    return err as RegistryError;
  }
}

describe("checkListenerHosts", () => {
  it("allows the public host and the loopback names, in any case and spelling", () => {
    expect(refusal(["iot.example.com", "localhost", "127.0.0.1", "::1"], "iot.example.com")).toBeUndefined();
    expect(refusal(["IOT.Example.com.", " LocalHost ", "0:0:0:0:0:0:0:1", ""], "iot.example.com")).toBeUndefined();
    expect(refusal(["2001:db8::1", "localhost"], "2001:DB8:0::1")).toBeUndefined();
  });

  it("refuses any other name with PERMISSION_DENIED naming it and the public host", () => {
    for (const [names, bad] of [
      [["localhost", "bank.example.com"], "bank.example.com"],
      [["iot.example.com.evil.net"], "iot.example.com.evil.net"],
      [["10.0.0.5"], "10.0.0.5"],
      [["127.0.0.2"], "127.0.0.2"],
      [["::ffff:127.0.0.1"], "::ffff:127.0.0.1"],
    ] as const) {
      const err = refusal([...names], "iot.example.com");
      expect(err?.code, bad).toBe("PERMISSION_DENIED");
      const reason = `"${bad}" is neither the public host (IOT_PUBLIC_HOST=iot.example.com) nor a loopback name (localhost, 127.0.0.1, ::1)`;
      expect(err?.errors).toEqual({ hostnames: reason });
      expect(err?.message).toBe(`hostnames: ${reason}`);
    }
  });

  it("allows loopback names only when the public host is localhost", () => {
    expect(refusal(["localhost", "mqtt.example.com"], "localhost")?.code).toBe("PERMISSION_DENIED");
  });
});
