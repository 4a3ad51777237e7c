import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import { DEFAULT_DOWNLINK_TOPIC } from "../domain/auth-outcome.js";
import { fail } from "../errors.js";
import { getTask, type Task } from "../domain/tasks.js";
import type { Group } from "../domain/groups.js";
import type { SessionTable } from "../sessions/session-table.js";
import { downlinkOf, InFlight, routeFor, type QueuedCommand } from "./command-delivery.js";
import { commandDeviceById, commandDeviceNamed } from "./command-device.js";
import { dueCommands, failCommands, SWEEP_BATCH } from "./command-expiry.js";
import {
  COMMAND_COMMIT_EVERY_MS,
  COMMAND_SYNC_EVERY_MS,
  type CommandRouterOptions,
  type RemoteCommands,
} from "./command-router-options.js";
import { recordGroupCommand } from "./group-commands.js";
import { GroupProgress } from "./group-progress.js";
import { GroupCommit } from "./group-commit.js";
import { pendingCommands } from "./pending-commands.js";
import { PUBLISH_STATUS, type PublishStatus } from "./publish-status.js";
import { insertControlLogs, type NewDeviceCommand, type RecordedCommand } from "./record-commands.js";
import { reportCommit } from "./report-commit.js";
import type { SettledLog, SettleReport } from "./settle-batch.js";
import { commandTopic } from "./command-payload.js";
import { storedCommandProperties, type CommandProperties } from "./command-properties.js";
import { commandStreamsOf } from "./command-streams.js";
import { commandsTotal } from "../ops/registry-metrics.js";
import { queryIn } from "../store/query-in.js";
import type { DownlinkReportDetail, ResumedFlow } from "./command-delivery.js";
import { writeRetained } from "../domain/retained.js";
import { routerMulticast, type LoraMulticastSends } from "./lora-multicast-send.js";

/** A command for one device, already checked to belong to the caller's tenant. */
export interface DeviceCommand {
  /** The device; may be left out when `deviceId` names it. */
  deviceIntId?: number | undefined;
  /**
   * The device's deviceID, when the caller named it: alone it finds the device (no second lookup needed), beside
   * `deviceIntId` it must name the same device (FORM_INVALID otherwise).
   */
  deviceId?: string | undefined;
  /** Relative topic; when omitted, the command stream's of a data point payload, else the default downlink topic. */
  topic?: string | undefined;
  /** Opaque, or `{dataPointID: value}` checked against the product's command streams (see `commandTopic`). */
  payload: string;
  /**
   * 1 or 2 asks the device for an acknowledgement (MQTT QoS 1 PUBACK, QoS 2 PUBREC/PUBREL/PUBCOMP; protocols without
   * QoS levels treat 2 as 1: their own acknowledgement), 0 does not.
   */
  qos: 0 | 1 | 2;
  /** MQTT 5.0 PUBLISH properties (an MQTT 5.0 device gets them; others ignore them). */
  properties?: CommandProperties | undefined;
  /**
   * Retained (MQTT RETAIN=1): the command is also kept as the device's desired state on its topic, sent at each
   * SUBSCRIBE that matches it until replaced; an empty payload clears it (see domain/retained.ts).
   */
  retain?: boolean | undefined;
}

/** A command for every member of a group, already checked to be the caller's. */
export interface GroupCommand {
  group: Group;
  payload: string;
  /**
   * 1 or 2: each member's acknowledgement is tracked at that QoS (queued while offline); 0: sent once to the members
   * connected now (QoS 0). The API's needAck 1 is QoS 1.
   */
  qos: 0 | 1 | 2;
  /** MQTT 5.0 PUBLISH properties of every member's command. */
  properties?: CommandProperties | undefined;
  /** Retained: the command is kept as every member's desired state on its topic (see DeviceCommand.retain). */
  retain?: boolean | undefined;
}

/**
 * Turns commands into control logs and routes them to the adapter holding
 * the device's session. A command for a device that is not connected stays
 * issued and is sent when one of its sessions (or its gateway's) opens, until
 * its TTL runs out; a periodic sweep marks expired ones failed. Adapters
 * report the outcome, which settles the log and the progress of its group
 * command's task.
 */
export class CommandRouter {
  /**
   * Several nodes: where a command goes when no session of its device (or gateway) is on this node, and which
   * devices hold a session on another node.
   */
  remote: RemoteCommands | undefined;
  private readonly inFlight = new InFlight();
  private readonly progress: GroupProgress;
  private readonly sweepIntervalMs: number;
  private readonly graceMs: number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();
  /** Adapters' reports, written in batches (group commit). */
  private readonly settling: GroupCommit<SettleReport, SettledLog | undefined>;
  /** New device commands, recorded in batches (group commit) and sent on once committed. */
  private readonly recording: GroupCommit<NewDeviceCommand, RecordedCommand>;
  /** Group commands of groups with a LoRaWAN multicast session: one frame, not a downlink per member. */
  private readonly multicast: LoraMulticastSends;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessions: SessionTable,
    /** How long an issued command stays deliverable, ms. */
    private readonly ttlMs: number,
    private readonly options: CommandRouterOptions = {},
  ) {
    this.progress = new GroupProgress(db);
    this.sweepIntervalMs = options.sweepIntervalMs ?? Math.min(5_000, Math.max(500, Math.floor(ttlMs / 4)));
    this.graceMs = options.inFlightGraceMs ?? 60_000;
    const durability = options.durability;
    const syncEveryMs = options.syncEveryMs ?? COMMAND_SYNC_EVERY_MS;
    this.settling = reportCommit(db, this.progress, durability, syncEveryMs);
    this.multicast = routerMulticast(db, sessions, this.settling, this.progress, () => this.remote !== undefined);
    // Sent once committed, before the sync: a crash of this process keeps the log; only a power cut within the
    // sync (a few ms) could lose the log of a command a device got. The caller's 201 waits for the sync.
    this.recording = new GroupCommit(db, insertControlLogs, {
      durability,
      syncEveryMs,
      commitEveryMs: options.commitEveryMs ?? COMMAND_COMMIT_EVERY_MS,
      committed: (recorded) => {
        commandsTotal().inc({ outcome: "issued" }, recorded.length);
        for (const r of recorded) this.send(r.cmd, r.now);
      },
    });
  }

  /**
   * Records the command and sends it on when the device (or its gateway) is connected; it is issued (1) either way.
   * A data point payload is checked first (FORM_INVALID, nothing recorded), see `commandTopic`.
   */
  async publish(
    caller: Caller,
    cmd: DeviceCommand,
    now = Date.now(),
  ): Promise<{ id: number; publishStatus: PublishStatus; deviceIntId: number }> {
    const expiresAt = now + this.ttlMs;
    const [device] =
      cmd.deviceIntId !== undefined
        ? await commandDeviceById(this.db, caller.tenantId, cmd.deviceIntId)
        : await commandDeviceNamed(this.db, caller.tenantId, cmd.deviceId ?? "");
    if (!device) throw fail.notFound("device");
    if (cmd.deviceId !== undefined && device.deviceId !== cmd.deviceId)
      throw fail.form({ deviceIntID: "is not the device named by deviceID" });
    const streams = await commandStreamsOf(this.db, device, device.deviceType === 2);
    const topic = commandTopic(streams, cmd.payload, cmd.topic) ?? DEFAULT_DOWNLINK_TOPIC;
    const { cmd: recorded } = await this.recording.add({
      log: {
        tenantId: caller.tenantId,
        deviceIntId: device.id,
        topic,
        payload: cmd.payload,
        qos: cmd.qos,
        publishStatus: PUBLISH_STATUS.issued,
        userIntId: caller.userIntId,
        publishUser: caller.username,
        expiresAt,
        createAt: now,
        taskIntId: null,
        ...storedCommandProperties(cmd.properties),
      },
      deviceId: device.deviceId,
      gateway: device.gateway,
      now,
    });
    if (cmd.retain) {
      const stored = storedCommandProperties(cmd.properties);
      await writeRetained(
        this.db,
        {
          tenantId: caller.tenantId,
          deviceIntId: device.id,
          direction: "command",
          topic,
          payload: Buffer.from(cmd.payload, "utf8"),
          qos: cmd.qos,
          properties: stored.properties,
          controlLogIntId: recorded.id,
        },
        now,
      );
    }
    return { id: recorded.id, publishStatus: PUBLISH_STATUS.issued, deviceIntId: device.id };
  }

  /**
   * Sends a command to every member of a group and answers its task. At
   * QoS 1 or 2 each member's command is tracked like `publish` (queued while
   * offline); at QoS 0 it goes once to the members connected now, and the
   * others' logs fail at once. A data point payload is checked
   * against the product's device command streams (type 2) like `publish`'s
   * with no topic, and goes to that stream's topic on every member.
   */
  async publishToGroup(
    caller: Caller,
    cmd: GroupCommand,
    now = Date.now(),
  ): Promise<{ task: Task; controlLogId: number; deviceIntIds: number[] }> {
    const product = await this.db
      .selectFrom("products")
      .select(["id as productIntId", "cloudProtocol"])
      .where("id", "=", cmd.group.productIntId)
      .executeTakeFirstOrThrow();
    const streams = await commandStreamsOf(this.db, product, false);
    const topic = commandTopic(streams, cmd.payload, undefined) ?? DEFAULT_DOWNLINK_TOPIC;
    const { task, groupLogId, commands } = await recordGroupCommand(
      this.db,
      caller,
      {
        group: cmd.group,
        payload: cmd.payload,
        topic,
        qos: cmd.qos,
        expiresAt: now + this.ttlMs,
        properties: cmd.properties,
        retain: cmd.retain,
      },
      now,
    );
    commandsTotal().inc({ outcome: "issued" }, commands.length);
    if (product.cloudProtocol === 4 && (await this.multicast.send(cmd.group, task.id, groupLogId, commands, now))) {
      const deviceIntIds = commands.map((c) => c.deviceIntId);
      return { task: await getTask(this.db, caller, task.taskId), controlLogId: groupLogId, deviceIntIds };
    }
    const away = commands.filter((c) => this.send(c, now, false) === "no route");
    let unreachable = away.map((c) => c.id);
    if (this.remote && away.length > 0) {
      const targets = [...new Set(away.flatMap(routingIds))];
      this.remote.deliver(targets);
      const elsewhere = await this.remote.heldElsewhere(targets);
      unreachable = away.filter((c) => !routingIds(c).some((id) => elsewhere.has(id))).map((c) => c.id);
    }
    if (cmd.qos === 0) {
      let failed = 0;
      for (let i = 0; i < unreachable.length; i += SWEEP_BATCH) {
        const batch = unreachable.slice(i, i + SWEEP_BATCH);
        failed += (await failCommands(this.db, batch, "device not connected", now)).length;
      }
      commandsTotal().inc({ outcome: "failed" }, failed);
    }
    await this.progress.refresh(task.id);
    const deviceIntIds = commands.map((c) => c.deviceIntId);
    return { task: await getTask(this.db, caller, task.taskId), controlLogId: groupLogId, deviceIntIds };
  }

  /**
   * Sessions of these devices opened (or were re-announced after their adapter
   * reconnected): sends their unexpired issued commands, and those of the
   * devices behind them when they are gateways, oldest first, in one query per
   * 512 devices (queryIn's lengths). Commands already sent down the same adapter
   * stream are not sent again. Answers how many went.
   */
  async deliverPending(deviceIntIds: readonly number[], now = Date.now()): Promise<number> {
    const rows = await queryIn(deviceIntIds, (chunk) => pendingCommands(this.db, chunk, now));
    rows.sort((a, b) => a.id - b.id); // across chunks
    let sent = 0;
    for (const r of rows) {
      const cmd: QueuedCommand = {
        ...r,
        deviceIntId: r.deviceIntId!,
        topic: r.topic ?? DEFAULT_DOWNLINK_TOPIC,
        expiresAt: r.expiresAt ?? 0,
      };
      if (this.send(cmd, now, false) === "sent") sent++;
    }
    return sent;
  }

  /**
   * An adapter's report on a downlink, with what it said (kept as the log's `result` when not empty). Only a command
   * still issued changes; its group task is recounted. `issued` is no outcome: the adapter gave the command back
   * undelivered, see `requeue`.
   */
  async settle(
    downlinkId: number,
    status: PublishStatus,
    message = "",
    now = Date.now(),
    detail: DownlinkReportDetail = {},
  ): Promise<void> {
    if (this.multicast.owns(downlinkId))
      return this.multicast.settle(downlinkId, status, message, now, detail.multicast);
    if (status === PUBLISH_STATUS.issued) {
      this.inFlight.release(downlinkId);
      return this.requeue(downlinkId, now, detail.resume);
    }
    // Still held while the report is committed: a session opening meanwhile reads the log as issued, and must not
    // send the command again down the stream that just delivered it (a QoS 2 PUBREL resent right after CONNACK is
    // answered within the commit).
    try {
      await this.settling.add({ downlinkId, status, message, now });
    } finally {
      this.inFlight.release(downlinkId);
    }
  }

  /**
   * An adapter gave a command back undelivered (its device left, or the command expired, before the device
   * subscribed to its topic, or — a persistent MQTT session — before it acknowledged it): it stays queued and goes
   * again like any queued command — at once when a session of its device (or gateway) is open on this node now (a
   * new connection of the device that opened while the command was held on the old one), else when one opens, until
   * its TTL. `resume` (the packet identifier it went out with) is kept on the log and goes with it.
   */
  private async requeue(downlinkId: number, now: number, resume: ResumedFlow | undefined): Promise<void> {
    if (resume)
      await this.db
        .updateTable("controlLogs")
        .set({ resumePacketId: resume.packetId, resumeReleased: resume.released ? 1 : 0 })
        .where("id", "=", downlinkId)
        .where("publishStatus", "=", PUBLISH_STATUS.issued)
        .execute();
    const log = await this.db
      .selectFrom("controlLogs")
      .select("deviceIntId")
      .where("id", "=", downlinkId)
      .where("publishStatus", "=", PUBLISH_STATUS.issued)
      .executeTakeFirst();
    if (log?.deviceIntId != null) await this.deliverPending([log.deviceIntId], now);
  }

  /**
   * Marks failed the issued commands whose TTL ran out, except those an
   * adapter may still answer (handed over less than the in-flight grace ago, by this node or — several nodes, as
   * `handed_at` says — by another).
   * Answers how many failed.
   */
  async expire(now = Date.now()): Promise<number> {
    const due = await dueCommands(this.db, now, this.remote !== undefined ? this.graceMs : undefined);
    const ids = due.filter((id) => !this.inFlight.awaiting(id, now, this.graceMs));
    if (ids.length === 0) return 0;
    const expired = await failCommands(this.db, ids, "expired", now);
    for (const r of expired) this.inFlight.release(r.id);
    commandsTotal().inc({ outcome: "expired" }, expired.length);
    const tasks = new Set(expired.flatMap((r) => (r.taskIntId == null ? [] : [r.taskIntId])));
    for (const t of tasks) await this.progress.refresh(t);
    return expired.length;
  }

  /** Starts the expiry sweep (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy) return; // a slow sweep is not stacked up behind
      busy = true;
      this.sweeping = this.expire()
        .catch((err: unknown) => this.options.onError?.(err))
        .finally(() => (busy = false));
    }, this.sweepIntervalMs);
    this.timer.unref();
  }

  /** Stops the sweep and waits for the work under way (call before closing the store). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
    await this.recording.idle();
    await this.settling.idle();
    await this.progress.idle();
  }

  /**
   * A routed message from another node: these devices' (or gateways') queued commands are due; those of devices
   * connected here go now.
   */
  async deliverHere(deviceIntIds: readonly number[], now = Date.now()): Promise<number> {
    return this.deliverPending(
      deviceIntIds.filter((id) => this.sessions.isOnline(id)),
      now,
    );
  }

  /**
   * Sends the command down its route now, unless it went down that stream already. With no route here and
   * `forward`, the other nodes are asked to send it (several nodes).
   */
  private send(cmd: QueuedCommand, now: number, forward = true): "sent" | "in flight" | "no route" {
    const route = routeFor((id) => this.sessions.route(id), cmd);
    if (!route) {
      if (forward) this.remote?.deliver(routingIds(cmd));
      return "no route";
    }
    if (!this.inFlight.claim(cmd.id, route.link, now)) return "in flight";
    const expand = this.options.downlinkPayload;
    route.link.sendDownlink(downlinkOf(expand ? { ...cmd, payload: expand(cmd.payload) } : cmd, route));
    this.remote?.handedOver(cmd.id, now);
    commandsTotal().inc({ outcome: "downlinked" });
    return "sent";
  }
}

/** The devices whose session can carry the command: its own, and its gateway's. */
const routingIds = (cmd: QueuedCommand): number[] =>
  cmd.gateway == null ? [cmd.deviceIntId] : [cmd.deviceIntId, cmd.gateway];
