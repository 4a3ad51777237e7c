import { answer } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord } from "../output.js";

/** `iot publish <deviceID> <payload> [--topic]` or `iot publish --group <groupID> <payload>`: a command. */
export async function publish(
  ctx: CommandContext,
  target: { deviceID: string } | { groupID: string },
  payload: string,
  o: { topic?: string | undefined; qos?: 0 | 1 | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const r =
    "groupID" in target
      ? await answer(
          client.POST("/api/v1/group_publish", { body: { groupID: target.groupID, payload, needAck: o.qos ?? 1 } }),
        )
      : await answer(
          client.POST("/api/v1/device_publish", {
            body: { deviceID: target.deviceID, payload, ...(o.topic ? { topic: o.topic } : {}) },
          }),
        );
  printRecord(ctx.io, r, ctx.json);
}
