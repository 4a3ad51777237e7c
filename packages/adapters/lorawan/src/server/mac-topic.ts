// MAC commands sent by command: a command on the topic `mac` whose payload is a JSON MAC command (or an array of
// them), e.g. {"type":"ForceRejoinReq","period":0,"maxRetries":1,"rejoinType":0,"dataRate":0}, goes to the device
// as the FRMPayload of an FPort 0 downlink in its next receive window (class C: at once). LoRaWAN 1.1 commands go to
// 1.1 devices only.
import { ok, refuse, type Result } from "../codec/result.js";
import { encodeDownlinkMacCommands, type DownlinkMacCommand } from "../mac/mac-commands.js";

/** The command topic that carries MAC commands. */
export const MAC_TOPIC = "mac";

/** Downlink MAC commands only LoRaWAN 1.1 devices know. */
const ONLY_1_1 = new Set(["ResetConf", "RekeyConf", "ADRParamSetupReq", "ForceRejoinReq", "RejoinParamSetupReq"]);

/** The FPort 0 payload for a `mac` command's payload, or why it cannot be sent to a device of `macVersion`. */
export function macCommandPayload(payload: Uint8Array, macVersion: string | undefined): Result<Buffer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    return refuse('a "mac" command\'s payload must be JSON: a MAC command {"type": …} or an array of them');
  }
  const commands = (Array.isArray(parsed) ? parsed : [parsed]) as DownlinkMacCommand[];
  if (commands.length === 0 || commands.some((c) => typeof c !== "object" || c === null || typeof c.type !== "string"))
    return refuse('each MAC command must be an object with a "type"');
  const newer = commands.find((c) => ONLY_1_1.has(c.type));
  if (newer && macVersion !== "1.1") return refuse(`${newer.type} is a LoRaWAN 1.1 command; the device is 1.0.x`);
  const bytes = encodeDownlinkMacCommands(commands);
  if (!bytes.ok) return bytes;
  return bytes.value.length > 0 ? ok(bytes.value) : refuse("no MAC command bytes");
}
