import { answer } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord } from "../output.js";

/**
 * `iot publish <deviceID> <payload> [--topic] [--qos] [--retain]` or `iot publish --group <groupID> <payload> [--qos]
 * [--retain]`: a command. A group command without --qos is acknowledged (needAck 1); `--retain` keeps it as the desired
 * state (docs/devices/mqtt.md, "Retained messages").
 */
export async function publish(
  ctx: CommandContext,
  target: { deviceID: string } | { groupID: string },
  payload: string,
  o: { topic?: string | undefined; qos?: 0 | 1 | 2 | undefined; retain?: boolean | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const retain = o.retain ? { retain: 1 as const } : {};
  const r =
    "groupID" in target
      ? await answer(
          client.POST("/api/v1/group_publish", {
            body: {
              groupID: target.groupID,
              payload,
              ...(o.qos === undefined ? { needAck: 1 } : { qos: o.qos }),
              ...retain,
            },
          }),
        )
      : await answer(
          client.POST("/api/v1/device_publish", {
            body: {
              deviceID: target.deviceID,
              payload,
              ...(o.topic ? { topic: o.topic } : {}),
              ...(o.qos === undefined ? {} : { qos: o.qos }),
              ...retain,
            },
          }),
        );
  printRecord(ctx.io, r, ctx.json);
}
