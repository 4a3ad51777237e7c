import { answer } from "../client.js";
import { loggedIn, type CommandContext } from "../context.js";
import { printRecord } from "../output.js";

/** `iot publish <deviceID> <payload> [--topic]` or `iot publish --group <groupID> <payload>`: a command. */
export async function publish(
  ctx: CommandContext,
  target: { deviceID: string } | { groupID: string },
  payload: string,
  o: { topic?: string | undefined; qos?: number | undefined },
): Promise<void> {
  const client = loggedIn(ctx);
  const r =
    "groupID" in target
      ? await answer<unknown>(
          client.POST("/api/v1/group_publish", { body: { groupID: target.groupID, payload, needAck: o.qos ?? 1 } }),
        )
      : await answer<unknown>(
          client.POST("/api/v1/device_publish", {
            body: { deviceID: target.deviceID, payload, ...(o.topic ? { topic: o.topic } : {}) },
          }),
        );
  printRecord(ctx.io, r as Record<string, unknown>, ctx.json);
}
