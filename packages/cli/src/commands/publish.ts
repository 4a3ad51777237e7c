import { answer } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord } from "../output.js";

/**
 * `iot publish <deviceID> <payload> [--topic] [--retain]` or `iot publish --group <groupID> <payload> [--retain]`: a
 * command; `--retain` keeps it as the desired state (docs/devices/mqtt.md, "Retained messages").
 */
export async function publish(
  ctx: CommandContext,
  target: { deviceID: string } | { groupID: string },
  payload: string,
  o: { topic?: string | undefined; qos?: 0 | 1 | undefined; retain?: boolean | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const retain = o.retain ? { retain: 1 as const } : {};
  const r =
    "groupID" in target
      ? await answer(
          client.POST("/api/v1/group_publish", {
            body: { groupID: target.groupID, payload, needAck: o.qos ?? 1, ...retain },
          }),
        )
      : await answer(
          client.POST("/api/v1/device_publish", {
            body: { deviceID: target.deviceID, payload, ...(o.topic ? { topic: o.topic } : {}), ...retain },
          }),
        );
  printRecord(ctx.io, r, ctx.json);
}
