import { CoapError } from "../coap-error.js";
import type { RequestFields } from "../encode-message.js";
import type { DecodedResponse } from "../messages.js";
import { blockSize, type BlockOption } from "./block-option.js";

/** What one request message carries, less its token and message id (the exchange's). */
export type ExchangeFields = Omit<RequestFields, "token" | "messageId">;

/** Sends one request message to the peer and answers its response (a fresh token unless one is given). */
export type Exchange = (fields: ExchangeFields, token?: Buffer) => Promise<DecodedResponse>;

/**
 * Sends a body larger than a block as Block1 blocks (RFC 7959 §2.5) of 2^(maxSzx+4) bytes, each its own exchange,
 * the next once the peer answers 2.31 Continue, in the smaller block size it asks for if it does; the first block
 * says the whole size in Size1 and carries `token`. Answers the response to the last block, or the first response
 * that is not 2.31 (such as 4.13 with the peer's limit). Rejects `incomplete` on a 2.31 that names no block.
 */
export async function uploadBlocks(
  exchange: Exchange,
  fields: ExchangeFields,
  maxSzx: number,
  token: Buffer,
): Promise<DecodedResponse> {
  const body = fields.payload;
  let szx = maxSzx;
  for (let offset = 0; ;) {
    const size = blockSize(szx);
    const num = offset / size;
    const more = offset + size < body.length;
    const block = { ...fields, payload: body.subarray(offset, offset + size), block1: { num, more, szx } };
    const size1 = num === 0 ? body.length : undefined;
    const response = await exchange({ ...block, size1 }, num === 0 ? token : undefined);
    const acked = response.block1;
    if (!more || response.packet.code !== "2.31") return response;
    if (!acked || acked.num !== num || !acked.more)
      throw new CoapError("incomplete", `block ${num} of the request was answered 2.31 without its Block1`);
    offset += size;
    if (acked.szx < szx) szx = acked.szx; // the peer wants smaller blocks (RFC 7959 §2.5)
  }
}

/**
 * The whole body of a response whose first block is `first` (RFC 7959 §2.4): asks for each next block by sending
 * `fields` with Block2, in the block size the peer last used, checking that each block starts where the body so
 * far ends and keeps the first one's ETag. Rejects `too-large` past `maxBodyBytes` (announced in Size2 or
 * received) and `incomplete` when the blocks do not fit together or one is answered with another code.
 */
export async function fetchBlocks(
  exchange: Exchange,
  first: DecodedResponse,
  fields: ExchangeFields,
  maxBodyBytes: number,
): Promise<Buffer> {
  const { packet, block2 } = first;
  if (!block2 || (!block2.more && block2.num === 0)) return packet.payload;
  if (block2.num !== 0) throw new CoapError("incomplete", `the response began with block ${block2.num}`);
  if ((first.size2 ?? 0) > maxBodyBytes)
    throw new CoapError("too-large", `the response is ${first.size2} bytes, more than ${maxBodyBytes}`);
  const chunks = [packet.payload];
  let received = packet.payload.length;
  let block: BlockOption = block2;
  while (block.more) {
    if (packet.payload.length === 0 || received % blockSize(block.szx) !== 0)
      throw new CoapError("incomplete", `block ${block.num} has ${received} bytes so far, not whole blocks`);
    const num = received / blockSize(block.szx);
    const next = await exchange({ ...fields, block2: { num, more: false, szx: block.szx } });
    const b = next.block2;
    if (!next.packet.code.startsWith("2.") || !b || b.num * blockSize(b.szx) !== received)
      throw new CoapError("incomplete", `block ${num} of the response came back as ${next.packet.code}`);
    if (first.etag && !next.etag?.equals(first.etag))
      throw new CoapError("incomplete", `the representation changed while its blocks were fetched`);
    if (b.more && next.packet.payload.length !== blockSize(b.szx))
      throw new CoapError("incomplete", `block ${b.num} is ${next.packet.payload.length} bytes, not whole`);
    received += next.packet.payload.length;
    if (received > maxBodyBytes) throw new CoapError("too-large", `the response is more than ${maxBodyBytes} bytes`);
    chunks.push(next.packet.payload);
    block = b;
  }
  return Buffer.concat(chunks, received);
}
