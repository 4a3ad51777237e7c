/** What a webhook delivery needs of an HTTP answer: its status, and whether the connection stays open after it. */
export interface ResponseHead {
  status: number;
  keepAlive: boolean;
}

/** Longest head (status line and headers) or chunk-size line kept while waiting for its end, in bytes. */
const MAX_LINE_BYTES = 64 * 1024;

type State = "head" | "skip" | "chunkSize" | "trailer" | "untilClose";

/**
 * Reads the HTTP/1.1 answers of one connection from its bytes as they come (RFC 9112): heads are parsed, bodies
 * skipped without being kept (content-length, chunked with trailers, or up to the close), 1xx interim answers
 * ignored. No I/O: the connection feeds it. Throws an Error naming what is wrong on bytes that are not HTTP.
 */
export class ResponseReader {
  #state: State = "head";
  /** Bytes of an unfinished head or line. */
  #pending: Buffer | undefined;
  /** Body bytes still to skip (state "skip"). */
  #remaining = 0;
  /** After the skipped bytes: the next chunk's size line, or the answer is complete. */
  #afterSkip: "chunkSize" | "done" = "done";
  #current: ResponseHead | undefined;

  /** Feeds bytes; answers the responses they complete, in order. */
  push(chunk: Buffer): ResponseHead[] {
    const data = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = undefined;
    const done: ResponseHead[] = [];
    let at = 0;
    while (at < data.length) {
      if (this.#state === "skip") {
        const n = Math.min(this.#remaining, data.length - at);
        at += n;
        this.#remaining -= n;
        if (this.#remaining > 0) break;
        if (this.#afterSkip === "done") done.push(this.#complete());
        else this.#state = "chunkSize";
        continue;
      }
      if (this.#state === "untilClose") break;
      const end = data.indexOf(this.#state === "head" ? "\r\n\r\n" : "\r\n", at, "latin1");
      if (end < 0) {
        if (data.length - at > MAX_LINE_BYTES) throw new Error("answer head too long");
        this.#pending = data.subarray(at);
        break;
      }
      const text = data.toString("latin1", at, end);
      at = end + (this.#state === "head" ? 4 : 2);
      if (this.#state === "head") {
        const head = this.#head(text);
        if (head !== undefined) done.push(head);
      } else if (this.#state === "chunkSize") {
        const size = Number.parseInt(text.split(";")[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0 || !/^[0-9a-fA-F]+$/.test(text.split(";")[0]!.trim()))
          throw new Error("invalid chunk size");
        if (size === 0) this.#state = "trailer";
        else this.#skip(size + 2, "chunkSize"); // the data and its CRLF
      } else if (text === "") {
        done.push(this.#complete()); // the empty line after the trailers
      }
    }
    return done;
  }

  /** The connection ended: completes an answer whose body runs to the close (none otherwise). */
  end(): ResponseHead | undefined {
    return this.#state === "untilClose" ? this.#complete() : undefined;
  }

  /** Parses a head; answers it when it has no body, else starts skipping the body. */
  #head(text: string): ResponseHead | undefined {
    const lines = text.split("\r\n");
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!m) throw new Error("answer is not HTTP/1.x");
    const status = Number(m[2]);
    let length: number | undefined;
    let chunked = false;
    let connection = "";
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Error("invalid answer header");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") {
        if (!/^\d+$/.test(value)) throw new Error("invalid content-length");
        length = Number(value);
      } else if (name === "transfer-encoding") chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === "connection") connection += `,${value.toLowerCase()}`;
    }
    if (status === 101) throw new Error("answer switches protocols");
    if (status < 200) return undefined; // an interim answer: the real one follows
    const keepAlive = m[1] === "1" ? !/(?:^|,)\s*close\s*(?:,|$)/.test(connection) : /keep-alive/.test(connection);
    this.#current = { status, keepAlive };
    if (status === 204 || status === 304 || (!chunked && length === 0)) return this.#complete();
    if (chunked) this.#state = "chunkSize";
    else if (length !== undefined) this.#skip(length, "done");
    else {
      this.#current.keepAlive = false;
      this.#state = "untilClose";
    }
    return undefined;
  }

  #skip(n: number, after: "chunkSize" | "done"): void {
    this.#state = "skip";
    this.#remaining = n;
    this.#afterSkip = after;
  }

  #complete(): ResponseHead {
    const head = this.#current!;
    this.#current = undefined;
    this.#state = "head";
    return head;
  }
}
