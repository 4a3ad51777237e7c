import type { ClientObservation, ClientRequest, ClientResponse } from "@iot/adapter-coap";
import type { DownlinkOutcome } from "@iot/adapter-core";
import type { ClientRegistration } from "../client-registration.js";
import { isSuccess } from "../code-message.js";
import { CONTENT_FORMAT } from "../codec/content-format.js";
import { requestPath } from "../command-request.js";
import { NOTIFY_TOPIC, RESP_TOPIC, answerData, outcomeOf } from "../response-uplink.js";
import { failureOf, type ServerContext } from "../server-context.js";
import { FIRMWARE_MSG_TYPE, parseFirmwareCommand, type FirmwareCommand } from "./firmware-command.js";
import type { FirmwareDownloads } from "./firmware-downloads.js";
import { FW_STATE, FirmwareStateWatch, resultMessage } from "./firmware-state.js";

/** What a firmware update needs of the server around it. */
export interface FirmwareHooks {
  readonly downloads: FirmwareDownloads;
  /** The URI the device downloads an offered package at (coap:// or coaps://, as it registered). */
  packageUri(registration: ClientRegistration, token: string): string;
  /** Calls `listener` with each new registration until the answered function is called. */
  onRegistered(listener: (registration: ClientRegistration) => void): () => void;
  /** Longest wait for each step the device takes by itself (download, update and coming back), ms. */
  readonly stepTimeoutMs: number;
}

const STATE = "/5/0/3";
const RESULT = "/5/0/5";
const now = () => Math.floor(Date.now() / 1000);

/** A resource's plain-text value as a number (State and Update Result are integers). */
const numberOf = (response: ClientResponse): number | undefined => {
  const n = Number(response.payload.toString("utf8"));
  return response.payload.length > 0 && Number.isInteger(n) ? n : undefined;
};

/**
 * Updates a device's firmware (OMA-TS-LightweightM2M-V1_0 §E.6, object 5) as one command: observes State and
 * Update Result, delivers the package by block-wise Write to /5/0/0 (push) or by writing Package URI /5/0/1 with the
 * URI of a download this server serves (pull), executes Update /5/0/2 once State is Downloaded, and waits for the
 * device to report success or to register again. The device counts as updated when its Firmware Version /3/0/3 reads
 * the command's version. State and Update Result notifications go to `up/notify` as progress (the command's reqID);
 * the final /3/0/3 read goes to `up/resp`. A failing Update Result fails the command with its meaning.
 */
export async function runFirmwareUpdate(
  ctx: ServerContext,
  registration: ClientRegistration,
  payload: Uint8Array,
  hooks: FirmwareHooks,
): Promise<DownlinkOutcome> {
  const parsed = parseFirmwareCommand(payload);
  if (!parsed.ok) {
    ctx.log.info({ deviceId: registration.deviceId, reason: parsed.reason }, "firmware update refused");
    return { status: "FAILED", message: parsed.reason };
  }
  const cmd = parsed.value;
  const watch = new FirmwareStateWatch();
  const observations: ClientObservation[] = [];
  let again: ClientRegistration | undefined;
  let token: string | undefined;
  const stopListening = hooks.onRegistered((r) => {
    if (r.endpoint !== registration.endpoint || r === registration) return;
    again = r;
    watch.poke();
  });
  registration.lease.onClose(() => watch.poke());
  const request = (r: ClientRegistration, fields: ClientRequest) =>
    r.layer.request(r.peer, { ...fields, path: requestPath(r.objects.rootPath, String(fields.path)) });
  try {
    for (const [path, key] of [
      [STATE, "state"],
      [RESULT, "result"],
    ] as const) {
      const take = (response: ClientResponse) => {
        const value = numberOf(response);
        if (value !== undefined) watch.take(key, value);
      };
      const observation = await registration.layer.observe(
        registration.peer,
        {
          method: "GET",
          path: requestPath(registration.objects.rootPath, path),
          accept: CONTENT_FORMAT.text,
          observe: 0,
        },
        (notification) => {
          take(notification);
          const data = answerData(notification, path, CONTENT_FORMAT.text, now());
          return ctx.publish(registration, NOTIFY_TOPIC, { reqID: cmd.reqID, msgType: "notify", data });
        },
      );
      observations.push(observation);
      if (!isSuccess(observation.response.code)) return failed(outcomeOf(observation.response.code), path);
      take(observation.response);
    }
    if (watch.state !== FW_STATE.idle) {
      // Writing an empty Package URI resets the state machine to Idle (§E.6.1).
      await request(registration, { method: "PUT", path: "/5/0/1", payload: "", contentFormat: CONTENT_FORMAT.text });
      await watch.until(() => (watch.state === FW_STATE.idle ? true : undefined), hooks.stepTimeoutMs, "State Idle");
    }
    const delivered = await deliver(
      cmd,
      (fields) => request(registration, fields),
      (bytes) => {
        token = hooks.downloads.offer(bytes, cmd.sha256);
        return hooks.packageUri(registration, token);
      },
    );
    if (!isSuccess(delivered.code))
      return failed(outcomeOf(delivered.code), cmd.method === "push" ? "/5/0/0" : "/5/0/1");
    const downloaded = await watch.until(
      () => (watch.state === FW_STATE.downloaded ? 0 : (watch.result ?? 0) > 1 ? watch.result : undefined),
      hooks.stepTimeoutMs,
      "the package downloaded (State 2)",
    );
    if (downloaded > 1) return { status: "FAILED", message: resultMessage(downloaded) };
    if (token !== undefined) hooks.downloads.withdraw(token);
    const executed = await request(registration, { method: "POST", path: "/5/0/2" });
    if (!isSuccess(executed.code)) return failed(outcomeOf(executed.code), "/5/0/2");
    const result = await watch.until(
      () => (again ? 1 : watch.result !== undefined && watch.result !== 0 ? watch.result : undefined),
      hooks.stepTimeoutMs,
      "the update's result or the device's new registration",
    );
    if (result > 1) return { status: "FAILED", message: resultMessage(result) };
    const current = again ?? (registration.ended ? undefined : registration);
    const target =
      current ?? (await watch.until(() => again, hooks.stepTimeoutMs, "the device registering again after its update"));
    return await checkVersion(ctx, target, cmd, (fields) => request(target, fields));
  } catch (err) {
    return failureOf(err);
  } finally {
    stopListening();
    for (const o of observations) o.forget();
    if (token !== undefined) hooks.downloads.withdraw(token);
  }
}

/** A failed step's outcome, naming the resource. */
const failed = (outcome: DownlinkOutcome, path: string): DownlinkOutcome =>
  outcome.status === "FAILED" ? { status: "FAILED", message: `${path}: ${outcome.message}` } : outcome;

/** Push: the package by Write to /5/0/0 (Block1 when larger than a block); pull: its URI to /5/0/1. */
function deliver(
  cmd: FirmwareCommand,
  send: (fields: ClientRequest) => Promise<ClientResponse>,
  offer: (bytes: Buffer) => string,
): Promise<ClientResponse> {
  if (cmd.method === "push")
    return send({ method: "PUT", path: "/5/0/0", payload: cmd.package, contentFormat: CONTENT_FORMAT.opaque });
  return send({ method: "PUT", path: "/5/0/1", payload: offer(cmd.package), contentFormat: CONTENT_FORMAT.text });
}

/** Reads /3/0/3 of the (new) registration: the command's version is success. The answer goes to `up/resp`. */
async function checkVersion(
  ctx: ServerContext,
  registration: ClientRegistration,
  cmd: FirmwareCommand,
  send: (fields: ClientRequest) => Promise<ClientResponse>,
): Promise<DownlinkOutcome> {
  const response = await send({ method: "GET", path: "/3/0/3", accept: CONTENT_FORMAT.text });
  const data = answerData(response, "/3/0/3", CONTENT_FORMAT.text, now());
  await ctx.publish(registration, RESP_TOPIC, { reqID: cmd.reqID, msgType: FIRMWARE_MSG_TYPE, data });
  if (!isSuccess(response.code)) return failed(outcomeOf(response.code), "/3/0/3");
  const version = response.payload.toString("utf8");
  if (version !== cmd.version)
    return { status: "FAILED", message: `the device reports firmware ${version}, not ${cmd.version}` };
  return { status: "DELIVERED" };
}
