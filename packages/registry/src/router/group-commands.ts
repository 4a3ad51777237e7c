import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import { fail } from "../errors.js";
import { getGroup, type Group } from "../domain/groups.js";
import { createTask, TASK_STATUS, type Task } from "../domain/tasks.js";
import type { QueuedCommand } from "./command-delivery.js";
import { insertDeviceLogs } from "./control-log-insert.js";
import { writeRetained } from "../domain/retained.js";
import { storedCommandProperties, type CommandProperties } from "./command-properties.js";

/** What `recordGroupCommand` stores. */
export interface GroupCommandRecord {
  group: Group;
  payload: string;
  /** Relative topic on every member. */
  topic: string;
  /** The QoS each member gets: 1 or 2, it acknowledges (PUBACK, PUBCOMP); 0, none does. */
  qos: 0 | 1 | 2;
  /** Epoch ms after which a member's command is no longer delivered. */
  expiresAt: number;
  /** MQTT 5.0 PUBLISH properties every member's command carries. */
  properties?: CommandProperties | undefined;
  /** Kept as every member's retained command on the topic (its desired state); an empty payload clears it. */
  retain?: boolean | undefined;
}

/**
 * The group of the caller's tenant named by its groupID, or by groupIntID
 * too (Form 1), which must then be the same group. DATA_NOT_FOUND for an
 * unknown or foreign group; FORM_INVALID when the two ids disagree.
 */
export async function groupOfCommand(
  db: Kysely<Database>,
  caller: Caller,
  groupId: string,
  groupIntId?: number,
): Promise<Group> {
  const id =
    groupIntId ??
    (
      await db
        .selectFrom("groups")
        .select("id")
        .where("tenantId", "=", caller.tenantId)
        .where("groupId", "=", groupId)
        .executeTakeFirst()
    )?.id;
  if (id === undefined) throw fail.notFound("group");
  const group = await getGroup(db, caller, id);
  if (group.groupId !== groupId) throw fail.form({ groupIntID: "is not the group named by groupID" });
  return group;
}

/**
 * Records a group command in one transaction: its task (running, counting
 * the members), the group's control log (no device) and one control log per
 * member device, all issued. Answers the task, the group log id and the
 * members' commands in id order, ready to route.
 */
export async function recordGroupCommand(
  db: Kysely<Database>,
  caller: Caller,
  cmd: GroupCommandRecord,
  now = Date.now(),
): Promise<{ task: Task; groupLogId: number; commands: QueuedCommand[] }> {
  return db.transaction().execute(async (tx) => {
    const members = await tx
      .selectFrom("groupDevices as gd")
      .innerJoin("devices as d", "d.id", "gd.deviceIntId")
      .select(["d.id", "d.deviceId", "d.gateway"])
      .where("gd.groupIntId", "=", cmd.group.id)
      .where("d.tenantId", "=", caller.tenantId)
      .orderBy("d.id")
      .execute();
    const total = members.length;
    const task = await createTask(
      tx,
      caller,
      { kind: "group_publish", status: TASK_STATUS.running, result: { total, success: 0, failed: 0, pending: total } },
      now,
    );
    const base = {
      tenantId: caller.tenantId,
      payload: cmd.payload,
      qos: cmd.qos,
      publishStatus: 1,
      userIntId: caller.userIntId,
      publishUser: caller.username,
      createAt: now,
      updateAt: null,
      taskIntId: task.id,
    };
    const groupLog = await tx
      .insertInto("controlLogs")
      .values({ ...base, deviceIntId: null, groupIntId: cmd.group.id, topic: cmd.topic, expiresAt: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    const stored = storedCommandProperties(cmd.properties);
    const rows = await insertDeviceLogs(
      tx,
      members.map((m) => ({ ...base, ...stored, deviceIntId: m.id, topic: cmd.topic, expiresAt: cmd.expiresAt })),
    );
    const byDevice = new Map(members.map((m) => [m.id, m]));
    const commands = rows.map((r): QueuedCommand => {
      const m = byDevice.get(r.deviceIntId)!;
      return {
        id: r.id,
        deviceIntId: m.id,
        deviceId: m.deviceId,
        gateway: m.gateway,
        topic: cmd.topic,
        payload: cmd.payload,
        qos: cmd.qos,
        expiresAt: cmd.expiresAt,
        properties: stored.properties,
      };
    });
    commands.sort((a, b) => a.id - b.id);
    if (cmd.retain)
      for (const c of commands)
        await writeRetained(
          tx,
          {
            tenantId: caller.tenantId,
            deviceIntId: c.deviceIntId,
            direction: "command",
            topic: c.topic,
            payload: Buffer.from(c.payload, "utf8"),
            qos: c.qos,
            properties: c.properties,
            controlLogIntId: c.id,
          },
          now,
        );
    return { task, groupLogId: groupLog.id, commands };
  });
}
