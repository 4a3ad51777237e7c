import { randomBytes } from "node:crypto";
import { CODES, type CoapReply, type CoapRequest } from "@iot/adapter-coap";

/** First Uri-Path segment of package downloads: `coap://<server>/fw/<token>`. */
export const DOWNLOAD_PATH = "fw";

/**
 * Firmware packages offered for download while their update runs (pull delivery): each under a random 128-bit token
 * that is its URI's last segment, so only the device the URI was written to can know it. The message layer sends an
 * answer larger than a block as Block2 blocks, keeping it for the device's requests of the later blocks; the layers
 * are built with `resumableBlock2` for this path, so a download that stopped resumes from the block the device asks
 * for even when the layer no longer holds its earlier blocks (a new source port, a minute of silence).
 */
export class FirmwareDownloads {
  private readonly packages = new Map<string, { bytes: Buffer; etag: Buffer }>();

  /**
   * Offers `bytes` until withdrawn; answers the token. `sha256` (hex) gives the blocks' ETag, the same for every
   * request of the package, so a download resumed on a new request (another port, after the layer let its copy go)
   * is seen by the client as the same body.
   */
  offer(bytes: Buffer, sha256: string): string {
    const token = randomBytes(16).toString("base64url");
    this.packages.set(token, { bytes, etag: Buffer.from(sha256.slice(0, 16), "hex") });
    return token;
  }

  withdraw(token: string): void {
    this.packages.delete(token);
  }

  /** How many packages are offered now. */
  get size(): number {
    return this.packages.size;
  }

  /** Answers `GET /fw/<token>`: the package (octet-stream), 4.04 for an unknown token, 4.05 for other methods. */
  serve(request: CoapRequest): CoapReply {
    const offered = request.path.length === 2 ? this.packages.get(request.path[1]!) : undefined;
    if (!offered) return { code: CODES.notFound };
    if (request.method !== "GET") return { code: CODES.methodNotAllowed };
    return { code: CODES.content, payload: offered.bytes, contentFormat: 42, etag: offered.etag };
  }
}
