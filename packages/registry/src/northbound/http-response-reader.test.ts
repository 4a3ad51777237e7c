import { describe, expect, it } from "vitest";
import { ResponseReader } from "./http-response-reader.js";

/** Feeds `text` one byte at a time (every split point) and collects the answers. */
function byteByByte(text: string): Array<{ status: number; keepAlive: boolean }> {
  const reader = new ResponseReader();
  const bytes = Buffer.from(text, "latin1");
  const out = [];
  for (let i = 0; i < bytes.length; i++) out.push(...reader.push(bytes.subarray(i, i + 1)));
  return out;
}

describe("HTTP response reader", () => {
  it("reads pipelined answers with content-length bodies, whole or split at any byte", () => {
    const text =
      "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello" +
      "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\nno" +
      "HTTP/1.1 204 No Content\r\n\r\n";
    const expected = [
      { status: 200, keepAlive: true },
      { status: 500, keepAlive: true },
      { status: 204, keepAlive: true },
    ];
    expect(new ResponseReader().push(Buffer.from(text))).toEqual(expected);
    expect(byteByByte(text)).toEqual(expected);
  });

  it("skips chunked bodies with chunk extensions and trailers", () => {
    const text =
      "HTTP/1.1 202 Accepted\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n" +
      "x-trailer: 1\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
    const expected = [
      { status: 202, keepAlive: true },
      { status: 200, keepAlive: true },
    ];
    expect(new ResponseReader().push(Buffer.from(text))).toEqual(expected);
    expect(byteByByte(text)).toEqual(expected);
  });

  it("ignores interim 1xx answers and reports the final one", () => {
    const text =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n";
    expect(byteByByte(text)).toEqual([{ status: 201, keepAlive: true }]);
  });

  it("tells when the server closes the connection after an answer", () => {
    const reader = new ResponseReader();
    expect(reader.push(Buffer.from("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"))).toEqual([
      { status: 200, keepAlive: false },
    ]);
    expect(reader.push(Buffer.from("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n"))).toEqual([
      { status: 200, keepAlive: false },
    ]);
    expect(reader.push(Buffer.from("HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n"))).toEqual([
      { status: 200, keepAlive: true },
    ]);
  });

  it("completes an answer whose body runs to the close only when the connection ends", () => {
    const reader = new ResponseReader();
    expect(reader.push(Buffer.from("HTTP/1.1 200 OK\r\n\r\nbody without a length"))).toEqual([]);
    expect(reader.end()).toEqual({ status: 200, keepAlive: false });
    expect(new ResponseReader().end()).toBeUndefined();
  });

  it("throws on bytes that are not an HTTP/1.x answer", () => {
    expect(() => new ResponseReader().push(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toThrow(/not HTTP/);
    expect(() => new ResponseReader().push(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n"))).toThrow(
      /content-length/,
    );
    expect(() =>
      new ResponseReader().push(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n")),
    ).toThrow(/chunk size/);
    expect(() => new ResponseReader().push(Buffer.alloc(70_000, 65))).toThrow(/too long/);
  });
});
