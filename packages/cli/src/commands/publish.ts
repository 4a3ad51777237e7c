import { answer } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord } from "../output.js";

/**
 * `iot publish <deviceID> <payload> [--topic] [--qos]` or `iot publish --group <groupID> <payload> [--qos]`: a command.
 * A group command without --qos is acknowledged (needAck 1).
 */
export async function publish(
  ctx: CommandContext,
  target: { deviceID: string } | { groupID: string },
  payload: string,
  o: { topic?: string | undefined; qos?: 0 | 1 | 2 | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const r =
    "groupID" in target
      ? await answer(
          client.POST("/api/v1/group_publish", {
            body: { groupID: target.groupID, payload, ...(o.qos === undefined ? { needAck: 1 } : { qos: o.qos }) },
          }),
        )
      : await answer(
          client.POST("/api/v1/device_publish", {
            body: {
              deviceID: target.deviceID,
              payload,
              ...(o.topic ? { topic: o.topic } : {}),
              ...(o.qos === undefined ? {} : { qos: o.qos }),
            },
          }),
        );
  printRecord(ctx.io, r, ctx.json);
}
