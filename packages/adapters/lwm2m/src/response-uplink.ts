import type { ClientResponse } from "@iot/adapter-coap";
import type { DownlinkOutcome } from "@iot/adapter-core";
import { CONTENT_FORMAT } from "./codec/content-format.js";
import { decodeContent } from "./codec/content.js";
import type { ContentEntry } from "./codec/typed-value.js";
import { codeMessage, isSuccess } from "./code-message.js";
import type { MsgType, ReqId } from "./command.js";
import type { CompositeMsgType } from "./composite/composite-command.js";

/** Topic of a command's answer, relative to the device's mountpoint. */
export const RESP_TOPIC = "up/resp";
/** Topic of a notification of an observed path. */
export const NOTIFY_TOPIC = "up/notify";

/** The `data` of an `up/resp` or `up/notify` uplink. */
export interface AnswerData {
  readonly code: string;
  readonly codeMsg: string;
  /** The payload's values; absent when the answer had no payload. */
  readonly content?: ContentEntry[];
  /** Why the payload could not be decoded (then `content` is absent). */
  readonly contentError?: string;
  /** Where a Create made the new instance (`/3303/1`), from the Location-Path. */
  readonly location?: string;
}

/** An uplink's JSON: `{reqID, msgType, data}`. */
export interface AnswerUplink {
  readonly reqID: ReqId;
  /** A command's msgType, "notify", or "firmware-update" (firmware/run-firmware.ts). */
  readonly msgType: MsgType | CompositeMsgType | "notify" | "firmware-update";
  readonly data: AnswerData;
}

/**
 * The `data` of a device's answer to a request on `path`: code and its name, and the payload decoded into
 * `[{path, value}]` (with no Content-Format, a resource's payload is read as plain text, anything else in the
 * format that was asked for).
 */
export function answerData(response: ClientResponse, path: string, asked: number, nowSeconds: number): AnswerData {
  const base = { code: response.code, codeMsg: codeMessage(response.code) };
  const location = response.code === "2.01" && response.locationPath.length > 0;
  const withLocation = location ? { ...base, location: `/${response.locationPath.join("/")}` } : base;
  if (response.payload.length === 0 || !isSuccess(response.code)) return withLocation;
  const depth = path.split("/").length - 1;
  const format = response.contentFormat ?? (depth >= 3 ? CONTENT_FORMAT.text : asked);
  const content = decodeContent(format, response.payload, path, { now: nowSeconds });
  return content.ok ? { ...withLocation, content: content.value } : { ...withLocation, contentError: content.reason };
}

/** What becomes of the command: DELIVERED on 2.xx, else FAILED with `<code> <codeMsg>`. */
export function outcomeOf(code: string): DownlinkOutcome {
  return isSuccess(code) ? { status: "DELIVERED" } : { status: "FAILED", message: `${code} ${codeMessage(code)}` };
}

/** The payload bytes of an uplink. */
export function uplinkBytes(uplink: AnswerUplink): Uint8Array {
  return Buffer.from(JSON.stringify(uplink));
}
