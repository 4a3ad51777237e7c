import { describe, expect, test } from "vitest";
import {
  formatLinkFormat,
  formatRegisteredObjects,
  hasLinkParam,
  linkParam,
  MAX_LINKS,
  parseLinkFormat,
  parseRegisteredObjects,
  type Link,
} from "./link-format.js";
import type { Result } from "./result.js";

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  return r.reason;
};

// The Register payload of the issue: a root link with rt and ct (Core V1_1 §6.2.1), three instances, a version.
const REGISTER = '</>;rt="oma.lwm2m";ct=11543,</1/0>,</3/0>,</3303/0>;ver=1.1';

describe("parseLinkFormat", () => {
  test("reads each link's URI and parameters in order, keeping which values were quoted", () => {
    expect(value(parseLinkFormat(REGISTER))).toEqual([
      {
        uri: "/",
        params: [
          { name: "rt", value: "oma.lwm2m", quoted: true },
          { name: "ct", value: "11543" },
        ],
      },
      { uri: "/1/0", params: [] },
      { uri: "/3/0", params: [] },
      { uri: "/3303/0", params: [{ name: "ver", value: "1.1" }] },
    ]);
  });

  test("takes the same payload as UTF-8 bytes", () => {
    expect(parseLinkFormat(Buffer.from(REGISTER))).toEqual(parseLinkFormat(REGISTER));
  });

  test("a Discover answer's attributes come out as written, and a parameter may have no value", () => {
    // Shape of the Discover example of OMA-TS-LightweightM2M-V1_0 §5.4.2 (Core V1_1 §6.3.3).
    const links = value(parseLinkFormat("</3/0>;pmin=10;pmax=60,</3/0/1>,</3/0/2>;obs,</3/0/7>;dim=2;gt=50.5"));
    expect(links.map((l) => l.uri)).toEqual(["/3/0", "/3/0/1", "/3/0/2", "/3/0/7"]);
    expect(linkParam(links[0]!, "pmax")).toBe("60");
    expect(links[2]!.params).toEqual([{ name: "obs" }]);
    expect(hasLinkParam(links[2]!, "OBS")).toBe(true);
    expect(linkParam(links[3]!, "gt")).toBe("50.5");
  });

  test("a quoted value may hold commas, semicolons, spaces and escaped quotes", () => {
    const links = value(parseLinkFormat('</a>;title="x, y; \\"z\\"";ct="60 110",</b>'));
    expect(links[0]!.params).toEqual([
      { name: "title", value: 'x, y; "z"', quoted: true },
      { name: "ct", value: "60 110", quoted: true },
    ]);
    expect(links[1]!.uri).toBe("/b");
  });

  test("parameter names compare case-insensitively", () => {
    expect(linkParam(value(parseLinkFormat('</>;RT="oma.lwm2m"'))[0]!, "rt")).toBe("oma.lwm2m");
  });

  test("an empty or blank payload is no links", () => {
    expect(value(parseLinkFormat(""))).toEqual([]);
    expect(value(parseLinkFormat(" \r\n"))).toEqual([]);
  });

  test("whitespace around separators is tolerated, as the specifications print payloads on several lines", () => {
    expect(value(parseLinkFormat("</1/0>,\n </3/0> ; ver=1.0 ,</5>"))).toEqual([
      { uri: "/1/0", params: [] },
      { uri: "/3/0", params: [{ name: "ver", value: "1.0" }] },
      { uri: "/5", params: [] },
    ]);
  });

  test.each([
    ["/1/0", /does not start with "<"/],
    ["</1/0", /no closing ">"/],
    ["<>", /empty URI/],
    ["</a b>", /space, quote/],
    ['</a"b>', /space, quote/],
    ["</1/0>,", /trailing ","/],
    ["</1/0>,,</2>", /does not start with "<"/],
    ["</1/0></2/0>", /followed by "<"/],
    ["</1/0>;", /without a valid name/],
    ["</1/0>;=3", /without a valid name/],
    ["</1/0>;ver=", /"=" but no value/],
    ["</1/0>;ver=1 .1", /followed by "\."/],
    ['</1/0>;rt="oma', /unterminated/],
    ['</1/0>;rt="oma\\', /unterminated/],
    ["</1/0>;ver=1.1x y", /followed by "y"/],
  ])("%j is refused", (payload, why) => {
    expect(reason(parseLinkFormat(payload))).toMatch(why);
  });

  test("invalid UTF-8 is refused, never thrown", () => {
    expect(reason(parseLinkFormat(Uint8Array.from([0x3c, 0x2f, 0xff, 0x3e])))).toMatch(/UTF-8/);
  });

  test("a payload above the byte limit is refused before it is read", () => {
    expect(reason(parseLinkFormat("</1/0>,</2/0>", { maxBytes: 12 }))).toMatch(/13 bytes is above the limit of 12/);
    expect(value(parseLinkFormat("</1/0>,</2/0>", { maxBytes: 13 }))).toHaveLength(2);
  });

  test("more links than the limit are refused", () => {
    const many = Array.from({ length: MAX_LINKS + 1 }, (_, i) => `</${i}>`).join(",");
    expect(reason(parseLinkFormat(many, { maxBytes: 1 << 20 }))).toMatch(`more than ${MAX_LINKS} links`);
    expect(value(parseLinkFormat("</1>,</2>", { maxLinks: 2 }))).toHaveLength(2);
    expect(reason(parseLinkFormat("</1>,</2>,</3>", { maxLinks: 2 }))).toMatch(/more than 2 links/);
  });

  test("garbage of every byte value is refused or parsed, never thrown", () => {
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from(
        { length: 1 + (i % 40) },
        () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256,
      );
      const result = parseLinkFormat(bytes);
      expect(typeof result.ok).toBe("boolean");
    }
  });
});

describe("formatLinkFormat", () => {
  test("writes the register payload back byte for byte", () => {
    expect(value(formatLinkFormat(value(parseLinkFormat(REGISTER))))).toBe(REGISTER);
  });

  test("writes a Discover answer with valueless and numeric attributes", () => {
    const links: Link[] = [
      {
        uri: "/3/0",
        params: [
          { name: "pmin", value: "10" },
          { name: "pmax", value: "60" },
        ],
      },
      { uri: "/3/0/1", params: [] },
      { uri: "/3/0/7", params: [{ name: "dim", value: "2" }, { name: "obs" }] },
    ];
    expect(value(formatLinkFormat(links))).toBe("</3/0>;pmin=10;pmax=60,</3/0/1>,</3/0/7>;dim=2;obs");
  });

  test("quotes a value that is no token and escapes its quotes, so it parses back the same", () => {
    const links: Link[] = [
      {
        uri: "/x",
        params: [
          { name: "title", value: 'a "b", c;d' },
          { name: "e", value: "" },
        ],
      },
    ];
    const text = value(formatLinkFormat(links));
    expect(text).toBe('</x>;title="a \\"b\\", c;d";e=""');
    expect(value(parseLinkFormat(text))[0]!.params.map((p) => p.value)).toEqual(['a "b", c;d', ""]);
  });

  test("refuses a URI or parameter name that would not parse back", () => {
    expect(reason(formatLinkFormat([{ uri: "/a>b", params: [] }]))).toMatch(/cannot be written/);
    expect(reason(formatLinkFormat([{ uri: "", params: [] }]))).toMatch(/cannot be written/);
    expect(reason(formatLinkFormat([{ uri: "/a", params: [{ name: "a b" }] }]))).toMatch(/not a valid parmname/);
  });
});

describe("parseRegisteredObjects", () => {
  test("reads the root link's content format, the instances and an object version", () => {
    expect(value(parseRegisteredObjects(REGISTER))).toEqual({
      rootPath: "/",
      contentFormats: [11543],
      objects: [
        { objectId: 1, instances: [0] },
        { objectId: 3, instances: [0] },
        { objectId: 3303, version: "1.1", instances: [0] },
      ],
      ignored: [],
    });
  });

  test("without a root link the root is / and no content format is announced (a 1.0 client)", () => {
    // Payload shape of OMA-TS-LightweightM2M-V1_0 §5.3.1 Register.
    const links = value(parseRegisteredObjects("</1/0>,</1/1>,</2/0>,</2/1>,</3/0>,</4/0>,</5>"));
    expect(links.rootPath).toBe("/");
    expect(links.contentFormats).toEqual([]);
    expect(links.objects).toEqual([
      { objectId: 1, instances: [0, 1] },
      { objectId: 2, instances: [0, 1] },
      { objectId: 3, instances: [0] },
      { objectId: 4, instances: [0] },
      { objectId: 5, instances: [] },
    ]);
  });

  test("objects under an alternate path are read relative to it (Core V1_1 §6.2.1, alternate path)", () => {
    const links = value(parseRegisteredObjects('</lwm2m>;rt="oma.lwm2m",</lwm2m/1/101>,</lwm2m/3/0>,</lwm2m/5>'));
    expect(links.rootPath).toBe("/lwm2m");
    expect(links.objects).toEqual([
      { objectId: 1, instances: [101] },
      { objectId: 3, instances: [0] },
      { objectId: 5, instances: [] },
    ]);
    expect(links.ignored).toEqual([]);
  });

  test("a quoted list of content formats and a quoted version are both read (1.1 clients write either)", () => {
    const links = value(parseRegisteredObjects('</>;rt="oma.lwm2m";ct="60 110 112 11542",</1>;ver="1.1",</1/0>'));
    expect(links.contentFormats).toEqual([60, 110, 112, 11542]);
    expect(links.objects).toEqual([{ objectId: 1, version: "1.1", instances: [0] }]);
  });

  test("instances are sorted and repeats dropped, and an object listed before its instances keeps its version", () => {
    const links = value(parseRegisteredObjects("</3303/2>,</3303>;ver=1.1,</3303/0>,</3303/2>"));
    expect(links.objects).toEqual([{ objectId: 3303, version: "1.1", instances: [0, 2] }]);
  });

  test("links that name no object or instance under the root are listed as ignored, not refused", () => {
    const links = value(parseRegisteredObjects("</3/0/1>,</foo>,</3/0>,</65536/0>,</03/0>"));
    expect(links.objects).toEqual([{ objectId: 3, instances: [0] }]);
    expect(links.ignored).toEqual(["/3/0/1", "/foo", "/65536/0", "/03/0"]);
    const alt = value(parseRegisteredObjects('</lwm2m>;rt="oma.lwm2m",</3/0>,</lwm2m/4/0>'));
    expect(alt.ignored).toEqual(["/3/0"]);
  });

  test.each([
    ['</a>;rt="oma.lwm2m",</b>;rt="oma.lwm2m"', /at most one/],
    ['</lwm2m/>;rt="oma.lwm2m"', /must be absolute/],
    ['<lwm2m>;rt="oma.lwm2m"', /must be absolute/],
    ['</>;rt="oma.lwm2m";ct=json', /content format "json"/],
    ['</>;rt="oma.lwm2m";ct="60  110"', /content format ""/],
    ['</>;rt="oma.lwm2m";ct=70000', /content format "70000"/],
    ["</3>;ver=1,</3/0>", /version "1"/],
    ["</3/0>;ver=v1.1", /version "v1.1"/],
    ["</3/0", /no closing/],
  ])("%j is refused", (payload, why) => {
    expect(reason(parseRegisteredObjects(payload))).toMatch(why);
  });
});

describe("formatRegisteredObjects", () => {
  test("writes the issue's register payload byte for byte from its parse", () => {
    const links = value(parseRegisteredObjects(REGISTER));
    // The version moves to an object link of its own, where Core V1_1 §6.2.1 puts it.
    expect(value(formatRegisteredObjects(links))).toBe(
      '</>;rt="oma.lwm2m";ct=11543,</1/0>,</3/0>,</3303>;ver=1.1,</3303/0>',
    );
  });

  test("round-trips an alternate path, instance-less objects and several content formats", () => {
    const links = {
      rootPath: "/lwm2m",
      contentFormats: [60, 110],
      objects: [
        { objectId: 1, instances: [0, 1] },
        { objectId: 5, instances: [] },
        { objectId: 3311, version: "1.1", instances: [] },
      ],
    };
    const text = value(formatRegisteredObjects(links));
    expect(text).toBe('</lwm2m>;rt="oma.lwm2m";ct="60 110",</lwm2m/1/0>,</lwm2m/1/1>,</lwm2m/5>,</lwm2m/3311>;ver=1.1');
    expect(value(parseRegisteredObjects(text))).toEqual({ ...links, ignored: [] });
  });

  test("a plain root with no content formats writes no root link", () => {
    expect(
      value(formatRegisteredObjects({ rootPath: "/", contentFormats: [], objects: [{ objectId: 3, instances: [0] }] })),
    ).toBe("</3/0>");
  });
});
