import { describe, expect, it } from "vitest";
import { parseBasicAuth } from "./basic-auth.js";

const basic = (text: string | Buffer) => `Basic ${Buffer.from(text).toString("base64")}`;

describe("parseBasicAuth", () => {
  it("splits user and password at the first colon, so a password may hold colons", () => {
    expect(parseBasicAuth(basic("app_1:se:cr:et"))).toEqual({ username: "app_1", password: "se:cr:et" });
  });

  it("takes the scheme in any case, with padding or without, and UTF-8 text", () => {
    expect(parseBasicAuth(`bAsIc ${Buffer.from("ab:c").toString("base64")}`)).toEqual({
      username: "ab",
      password: "c",
    });
    expect(parseBasicAuth(basic("ab:c").replace(/=+$/, ""))).toEqual({ username: "ab", password: "c" });
    expect(parseBasicAuth(basic("jürgen:pässwörd"))).toEqual({ username: "jürgen", password: "pässwörd" });
  });

  it("gives an empty password as empty, for the credential check to refuse", () => {
    expect(parseBasicAuth(basic("user:"))).toEqual({ username: "user", password: "" });
  });

  it("refuses a missing header, another scheme, an empty user id and text without a colon", () => {
    for (const header of [undefined, null, "", "Basic", "Basic ", "Bearer abc", basic(":password"), basic("no-colon")])
      expect(parseBasicAuth(header), String(header)).toBeUndefined();
  });

  it("refuses base64 that is not canonical: stray characters, bad padding, leftover bits", () => {
    const good = Buffer.from("user:pw").toString("base64"); // dXNlcjpwdw==
    for (const encoded of ["!!!", `${good}x`, "dXNlcjpwdw=", "dXNlcjpwdx==", `dXNl cjpwdw==`, "dXNlcjpwdw==="])
      expect(parseBasicAuth(`Basic ${encoded}`), encoded).toBeUndefined();
    expect(parseBasicAuth(`Basic ${good}`)).toEqual({ username: "user", password: "pw" });
  });

  it("refuses credentials that are not UTF-8", () => {
    expect(parseBasicAuth(basic(Buffer.from([0x75, 0x3a, 0xff, 0xfe])))).toBeUndefined();
  });

  it("refuses credentials longer than 4096 base64 characters", () => {
    expect(parseBasicAuth(basic(`u:${"x".repeat(3070)}`))?.password).toHaveLength(3070); // 3072 bytes: 4096
    expect(parseBasicAuth(basic(`u:${"x".repeat(3071)}`))).toBeUndefined();
  });
});
