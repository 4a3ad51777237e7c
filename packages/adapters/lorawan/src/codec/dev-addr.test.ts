import { describe, expect, test } from "vitest";
import { allocateDevAddr, devAddrPrefix, hasDevAddrPrefix } from "./dev-addr.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};

describe("devAddrPrefix", () => {
  // chirpstack/chirpstack lrwn/src/netid.rs tests(): one NetID of each type 0..7 and its DevAddr prefix.
  test.each([
    ["00006d", 0x5a000000, 7],
    ["20006d", 0xad000000, 8],
    ["40036d", 0xd6d00000, 12],
    ["76db6d", 0xe6da0000, 15],
    ["96db6d", 0xf5b68000, 17],
    ["b6db6d", 0xfb6da000, 19],
    ["d6db6d", 0xfd6db400, 22],
    ["f6db6d", 0xfe6db680, 25],
  ])("NetID %s has DevAddr prefix %i/%i", (netId, prefix, length) => {
    expect(value(devAddrPrefix(netId))).toEqual({ prefix, length });
  });

  test("The Things Network's NetID 000013 gives DevAddrs starting 26 or 27 (NwkID 0x13 of LoRaWAN 1.0.x)", () => {
    expect(value(devAddrPrefix("000013"))).toEqual({ prefix: 0x26000000, length: 7 });
  });

  test("the private NetIDs 000000 and 000001 give prefixes 00/7 and 02/7", () => {
    expect(value(devAddrPrefix("000000"))).toEqual({ prefix: 0, length: 7 });
    expect(value(devAddrPrefix("000001"))).toEqual({ prefix: 0x02000000, length: 7 });
  });

  test("a NetID that is not 6 hex digits is refused", () => {
    expect(reason(devAddrPrefix("13"))).toMatch(/netId "13" must be 6 hex digits/);
  });
});

describe("hasDevAddrPrefix", () => {
  test("tells the network's DevAddrs from others", () => {
    const ttn = value(devAddrPrefix("000013"));
    expect(hasDevAddrPrefix("26011bda", ttn)).toBe(true);
    expect(hasDevAddrPrefix("27ffffff", ttn)).toBe(true);
    expect(hasDevAddrPrefix("28000000", ttn)).toBe(false);
    expect(hasDevAddrPrefix("nothex!!", ttn)).toBe(false);
    const type7 = value(devAddrPrefix("f6db6d"));
    expect(hasDevAddrPrefix("fe6db6ff", type7)).toBe(true);
    expect(hasDevAddrPrefix("fe6db600", type7)).toBe(false);
  });
});

describe("allocateDevAddr", () => {
  const counter = () => {
    let n = 0;
    return (size: number) => Buffer.alloc(size, n++);
  };

  test("puts the NetID's prefix before random NwkAddr bits", async () => {
    const addr = value(
      await allocateDevAddr({
        netId: "000013",
        isTaken: () => false,
        randomBytes: () => Buffer.from([0xff, 0x12, 0x34, 0x56]),
      }),
    );
    expect(addr).toBe("27123456");
    const zero = value(
      await allocateDevAddr({ netId: "000013", isTaken: () => false, randomBytes: () => Buffer.alloc(4) }),
    );
    expect(zero).toBe("26000000");
  });

  test("draws again while the callback says the address is taken", async () => {
    const asked: string[] = [];
    const addr = value(
      await allocateDevAddr({
        netId: "000000",
        randomBytes: counter(),
        isTaken: (a) => {
          asked.push(a);
          return asked.length < 3;
        },
      }),
    );
    expect(asked).toEqual(["00000000", "01010101", "00020202"]);
    expect(addr).toBe("00020202");
  });

  test("accepts an asynchronous callback (a registry lookup)", async () => {
    const taken = new Set(["00000000"]);
    const addr = await allocateDevAddr({ netId: "000000", randomBytes: counter(), isTaken: async (a) => taken.has(a) });
    expect(value(addr)).toBe("01010101");
  });

  test("gives up with a reason after maxAttempts taken draws", async () => {
    const r = await allocateDevAddr({ netId: "000013", isTaken: () => true, maxAttempts: 4 });
    expect(reason(r)).toMatch(/no free DevAddr under NetID 000013 after 4 attempts/);
  });

  test("uses node:crypto by default and always stays under the prefix", async () => {
    const prefix = value(devAddrPrefix("600008"));
    for (let i = 0; i < 50; i++) {
      const addr = value(await allocateDevAddr({ netId: "600008", isTaken: () => false }));
      expect(addr).toMatch(/^[0-9a-f]{8}$/);
      expect(hasDevAddrPrefix(addr, prefix)).toBe(true);
    }
  });

  test("a bad NetID is refused before any draw", async () => {
    expect(reason(await allocateDevAddr({ netId: "xyz", isTaken: () => false }))).toMatch(/netId/);
  });
});
