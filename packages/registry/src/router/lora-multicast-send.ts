import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { AdapterLink } from "../sessions/adapter-link.js";
import { takeMulticastFrame } from "../lora/lora-multicast.js";
import type { QueuedCommand } from "./command-delivery.js";
import { PUBLISH_STATUS, type PublishStatus } from "./publish-status.js";
import { failCommands, SWEEP_BATCH } from "./command-expiry.js";
import type { GroupProgress } from "./group-progress.js";
import type { SettleReport } from "./settle-batch.js";
import { commandsTotal } from "../ops/registry-metrics.js";

/** What a group command's task says of its multicast frame (its `result.multicast`). */
export interface MulticastNote {
  mcAddr: string;
  /** The McFCntDown the frame went with. */
  fCnt: number;
  /** Gateways that sent it (summed over the adapters that held members). */
  gateways: number;
  /** Members last heard through those gateways. */
  covered: number;
}

/** A multicast frame handed to adapters, waiting for their answers. */
interface Pending {
  taskIntId: number;
  note: MulticastNote;
  /** Adapters still to answer. */
  waiting: number;
  /** Member logs the frame covers (those held by an adapter that got it). */
  members: number[];
  sent: boolean;
  reasons: string[];
  /** Epoch ms it was handed over. */
  at: number;
}

/**
 * A frame whose adapter never answered (its stream broke) is forgotten after this long, ms; its members fail when
 * their TTL runs out, as any unanswered command's.
 */
const FORGET_AFTER_MS = 3_600_000;

/** What the router gives the multicast path: how member logs are settled and failed, and how tasks hear of it. */
interface MulticastHooks {
  route(deviceIntId: number): AdapterLink | undefined;
  settle(logIds: readonly number[], status: PublishStatus, message: string, now: number): Promise<void>;
  fail(logIds: readonly number[], message: string, now: number): Promise<void>;
  note(taskIntId: number, note: MulticastNote): Promise<void>;
  /** Whether other nodes may hold the members' sessions. */
  severalNodes(): boolean;
}

/**
 * Sends the group commands of groups that have a LoRaWAN multicast session as one frame instead of one downlink per
 * member: each adapter holding members gets one Downlink (id: the group's control log) with the session, the
 * McFCntDown taken from the store and the members it holds; it answers once, and that answer settles every member it
 * held (SENT: the frame went out, unconfirmed by nature; FAILED with its reason). Members no adapter holds fail at
 * once: no gateway has heard them, so none is known to cover them. With several nodes, a group none of whose members
 * is held on this node goes the unicast way, which reaches the node the LoRaWAN adapter is attached to.
 */
export class LoraMulticastSends {
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly hooks: MulticastHooks,
  ) {}

  /**
   * Sends the group command as multicast when the group has a session, answering true; false (nothing done) when it
   * has none. `commands` are the members' logs of the command, `groupLogId` its group log.
   */
  async send(
    group: { id: number },
    taskIntId: number,
    groupLogId: number,
    commands: readonly QueuedCommand[],
    now: number,
  ): Promise<boolean> {
    for (const [id, p] of this.pending) if (now - p.at > FORGET_AFTER_MS) this.pending.delete(id);
    const byLink = new Map<AdapterLink, QueuedCommand[]>();
    const unheard: number[] = [];
    for (const c of commands) {
      const link = this.hooks.route(c.deviceIntId);
      if (!link) unheard.push(c.id);
      else byLink.set(link, [...(byLink.get(link) ?? []), c]);
    }
    // Several nodes: the LoRaWAN adapter is attached to another one; the members' commands go there as unicast.
    if (byLink.size === 0 && this.hooks.severalNodes()) return false;
    const session = await takeMulticastFrame(this.db, group.id, now);
    if (!session) return false;
    const note: MulticastNote = { mcAddr: session.mcAddr, fCnt: session.fcntDown, gateways: 0, covered: 0 };
    await this.hooks.fail(unheard, "no gateway has heard the device: outside the multicast", now);
    await this.hooks.note(taskIntId, note);
    if (byLink.size === 0) return true;
    const members = [...byLink.values()].flat().map((c) => c.id);
    this.pending.set(groupLogId, { taskIntId, note, waiting: byLink.size, members, sent: false, reasons: [], at: now });
    const first = commands[0]!;
    for (const [link, held] of byLink)
      link.sendDownlink({
        id: groupLogId,
        deviceIntId: held[0]!.deviceIntId,
        topic: first.topic,
        payload: Buffer.from(first.payload, "utf8"),
        qos: 0,
        expiresAt: first.expiresAt,
        loraMulticast: {
          mcAddr: session.mcAddr,
          mcNwkSKey: session.nwkSessionKey,
          mcAppSKey: session.appSessionKey,
          fcnt: session.fcntDown,
          ...(session.dataRate !== null ? { dataRate: session.dataRate } : {}),
          ...(session.frequency !== null ? { frequencyHz: session.frequency } : {}),
          deviceIntIds: held.map((c) => c.deviceIntId),
        },
      });
    return true;
  }

  /** Whether `downlinkId` is a multicast frame waiting for its adapters' answers (then `settle` takes the answer). */
  owns(downlinkId: number): boolean {
    return this.pending.has(downlinkId);
  }

  /**
   * One adapter's answer; the last one settles the members with what the frame came to. `sent` is the answer's
   * multicast report (DownlinkResult multicast_gateways/multicast_covered): the gateways that sent the frame.
   */
  async settle(
    downlinkId: number,
    status: PublishStatus,
    message: string,
    now: number,
    sent: { gateways: number; covered: number } | undefined,
  ): Promise<void> {
    const p = this.pending.get(downlinkId);
    if (!p) return;
    p.waiting--;
    if (status !== PUBLISH_STATUS.failed && sent && sent.gateways > 0) {
      p.sent = true;
      p.note.gateways += sent.gateways;
      p.note.covered += sent.covered;
    } else p.reasons.push(message || "the adapter could not send it");
    if (p.waiting > 0) return;
    this.pending.delete(downlinkId);
    if (p.sent) {
      const gateways = `${p.note.gateways} gateway${p.note.gateways === 1 ? "" : "s"}`;
      await this.hooks.settle(p.members, PUBLISH_STATUS.sent, `sent as multicast to ${gateways}`, now);
    } else await this.hooks.fail(p.members, `multicast not sent: ${p.reasons.join("; ")}`, now);
    await this.hooks.note(p.taskIntId, p.note);
  }
}

/**
 * The router's multicast path: member logs settle through its report commit (`settling`), fail in batches with their
 * events, and the task's recount carries the note.
 */
export function routerMulticast(
  db: Kysely<Database>,
  sessions: { route(deviceIntId: number): AdapterLink | undefined },
  settling: { add(report: SettleReport): Promise<unknown> },
  progress: GroupProgress,
  severalNodes: () => boolean,
): LoraMulticastSends {
  return new LoraMulticastSends(db, {
    severalNodes,
    route: (id) => sessions.route(id),
    settle: async (ids, status, message, now) => {
      await Promise.all(ids.map((downlinkId) => settling.add({ downlinkId, status, message, now })));
    },
    fail: async (ids, message, now) => {
      let failed = 0;
      for (let i = 0; i < ids.length; i += SWEEP_BATCH)
        failed += (await failCommands(db, ids.slice(i, i + SWEEP_BATCH), message, now)).length;
      commandsTotal().inc({ outcome: "failed" }, failed);
    },
    note: (taskIntId, note) => {
      progress.note(taskIntId, note);
      return progress.refresh(taskIntId);
    },
  });
}
