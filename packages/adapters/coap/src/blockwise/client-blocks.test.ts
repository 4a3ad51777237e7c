import { generate } from "coap-packet";
import { describe, expect, it } from "vitest";
import { decode, type DecodedResponse } from "../messages.js";
import { encodeUint } from "../uint.js";
import { encodeBlock, type BlockOption } from "./block-option.js";
import { fetchBlocks, uploadBlocks, type ExchangeFields } from "./client-blocks.js";

/** A piggybacked response with the given Block1/Block2, ETag and payload. */
function reply(code: string, payload: Buffer, o: { block1?: BlockOption; block2?: BlockOption; etag?: number } = {}) {
  const options = [
    ...(o.etag !== undefined ? [{ name: "ETag" as const, value: encodeUint(o.etag) }] : []),
    ...(o.block2 ? [{ name: "Block2" as const, value: encodeBlock(o.block2) }] : []),
    ...(o.block1 ? [{ name: "Block1" as const, value: encodeBlock(o.block1) }] : []),
  ];
  return decode(
    generate({ code, messageId: 1, token: Buffer.from("t"), ack: true, options, payload }),
  ) as DecodedResponse;
}

const get: ExchangeFields = { code: "0.01", confirmable: true, path: ["3"], query: [], payload: Buffer.alloc(0) };
const body = Buffer.from(Array.from({ length: 1600 }, (_, i) => i % 251));

describe("fetchBlocks (RFC 7959 §2.4)", () => {
  it("follows a smaller block size the peer switches to, asking for the block where the body so far ends", async () => {
    const asked: (BlockOption | undefined)[] = [];
    const first = reply("2.05", body.subarray(0, 1024), { block2: { num: 0, more: true, szx: 6 }, etag: 9 });
    const whole = await fetchBlocks(
      async (f) => {
        asked.push(f.block2);
        const num = f.block2!.num === 1 ? 4 : f.block2!.num; // answers block 1 of 1024 as block 4 of 256
        const end = Math.min((num + 1) * 256, body.length);
        return reply("2.05", body.subarray(num * 256, end), {
          block2: { num, more: end < body.length, szx: 4 },
          etag: 9,
        });
      },
      first,
      get,
      10_000,
    );
    expect(whole).toEqual(body);
    expect(asked).toEqual([
      { num: 1, more: false, szx: 6 },
      { num: 5, more: false, szx: 4 },
      { num: 6, more: false, szx: 4 },
    ]);
  });

  it("rejects incomplete a block that starts elsewhere or with an error code", async () => {
    const first = reply("2.05", body.subarray(0, 256), { block2: { num: 0, more: true, szx: 4 } });
    const elsewhere = fetchBlocks(
      async () => reply("2.05", body.subarray(0, 100), { block2: { num: 3, more: false, szx: 4 } }),
      first,
      get,
      1e4,
    );
    await expect(elsewhere).rejects.toMatchObject({ code: "incomplete" });
    const error = fetchBlocks(async () => reply("4.08", Buffer.alloc(0)), first, get, 1e4);
    await expect(error).rejects.toMatchObject({ code: "incomplete", message: expect.stringContaining("4.08") });
  });

  it("answers a response without Block2 as it is", async () => {
    expect(
      await fetchBlocks(async () => Promise.reject(new Error("no")), reply("2.05", body.subarray(0, 900)), get, 1000),
    ).toEqual(body.subarray(0, 900));
  });
});

describe("uploadBlocks (RFC 7959 §2.5)", () => {
  const put: ExchangeFields = { ...get, code: "0.03", payload: body };

  it("sends Size1 and the caller's token with the first block only, then fresh tokens", async () => {
    const sent: [BlockOption | undefined, number | undefined, string | undefined][] = [];
    const last = await uploadBlocks(
      async (f, token) => {
        sent.push([f.block1, f.size1, token?.toString()]);
        return f.block1!.more ? reply("2.31", Buffer.alloc(0), { block1: f.block1 }) : reply("2.04", Buffer.alloc(0));
      },
      put,
      6,
      Buffer.from("obs"),
    );
    expect(last.packet.code).toBe("2.04");
    expect(sent).toEqual([
      [{ num: 0, more: true, szx: 6 }, 1600, "obs"],
      [{ num: 1, more: false, szx: 6 }, undefined, undefined],
    ]);
  });

  it("rejects incomplete a 2.31 that names no block", async () => {
    const upload = uploadBlocks(async () => reply("2.31", Buffer.alloc(0)), put, 6, Buffer.from("t"));
    await expect(upload).rejects.toMatchObject({ code: "incomplete" });
  });
});
