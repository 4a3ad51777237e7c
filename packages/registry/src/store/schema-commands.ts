import type { ColumnType, Generated } from "kysely";

/**
 * Downlink commands and their delivery state. A group command is one row with
 * `groupIntId` and no device (its status sums up the members'), plus one row
 * per member device, all tied to the group command's task.
 */
export interface ControlLogsTable {
  id: Generated<number>;
  tenantId: string;
  /** Null only on a group command's own row. */
  deviceIntId: number | null;
  groupIntId: number | null;
  topic: string | null;
  payload: string;
  qos: number;
  /** 0 failed, 1 issued, 2 delivered (device acknowledged), 3 sent, no ack needed. */
  publishStatus: number;
  userIntId: number | null;
  publishUser: string | null;
  /** After this (epoch ms) the command is no longer delivered; null = no limit. */
  expiresAt: number | null;
  createAt: number;
  updateAt: number | null;
  /** The task whose progress this command counts in (group commands), else null; may be left out on insert. */
  taskIntId: ColumnType<number | null, number | null | undefined, number | null>;
  /** What the adapter said when it settled the command (why it failed), else null; may be left out on insert. */
  result: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Several nodes: when a node last handed the still-issued command to an adapter (epoch ms), so the TTL sweep on
   * any node waits for its answer; null otherwise. May be left out on insert.
   */
  handedAt: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * MQTT 5.0 PUBLISH properties the command carries (JSON object text, `CommandProperties`), else null; may be left
   * out on insert.
   */
  properties: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * While the command waits for its device's answer (it carries a response topic and correlation data): the key an
   * uplink answering it has (`answerKey`), cleared once an answer settled it; else null. May be left out on insert.
   */
  awaitingAnswer: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * MQTT: the packet identifier a persistent session was sent the command with, unacknowledged, which the device's
   * next session gets it with again; else null. May be left out on insert.
   */
  resumePacketId: ColumnType<number | null, number | null | undefined, number | null>;
  /** MQTT QoS 2: 1 once the device answered PUBREC (only PUBREL goes again), else null. May be left out on insert. */
  resumeReleased: ColumnType<number | null, number | null | undefined, number | null>;
}

/**
 * Background work a caller follows at `/task_status/<taskId>`: group
 * publishes now, device import and export later (`kind` tells them apart).
 */
export interface TasksTable {
  id: Generated<number>;
  tenantId: string;
  /** Public id (UUID) in the status URL. */
  taskId: string;
  /** What the task does, e.g. `group_publish`. */
  kind: string;
  /** 1 waiting, 2 running, 3 success, 4 failed; 3 and 4 are final. */
  status: number;
  /** Percent done, 0..100. */
  progress: number;
  message: string | null;
  /** JSON text: the kind's outcome (counts, a download, per-row errors). */
  result: string | null;
  userIntId: number | null;
  createAt: number;
  updateAt: number | null;
}

/**
 * A command sent on a schedule to one device (`deviceIntId`) or to every member of a group (`groupIntId`), as the
 * user who created it. scheduleType 0 once at `crontabTime`, 1 every `intervalMinute` minutes, 2 by
 * `cronExpression` (UTC). `nextRunAt` (epoch ms) is null once the schedule has ended.
 */
export interface SchedulesTable {
  id: Generated<number>;
  tenantId: string;
  scheduleName: string;
  deviceIntId: number | null;
  groupIntId: number | null;
  scheduleType: number;
  intervalMinute: number | null;
  /** Epoch ms of a scheduleType 0 run. */
  crontabTime: number | null;
  cronExpression: string | null;
  topic: string | null;
  payload: string;
  /** Device commands: 1 the device acknowledges, 0 not. Group commands: needAck. */
  qos: number;
  userIntId: number | null;
  publishUser: string | null;
  nextRunAt: number | null;
  lastRunAt: number | null;
  /** The device command the last run recorded. */
  lastControlLogId: number | null;
  /** The group command task the last run started. */
  lastTaskIntId: number | null;
  /** Why the last run could not issue its command, else null. */
  lastError: string | null;
  createAt: number;
  updateAt: number | null;
}

/**
 * Retained messages (DESIGN §4): per device, direction and topic (relative to the device's mountpoint), the retained
 * command that is the device's desired state there, or the retained uplink that is the topic's last reported value.
 * A retained message with an empty payload deletes the row (MQTT-3.3.1-10/11).
 */
export interface RetainedMessagesTable {
  tenantId: string;
  deviceIntId: number;
  direction: RetainedDirection;
  topic: string;
  payload: Uint8Array;
  qos: number;
  /** MQTT 5.0 PUBLISH properties (JSON text: a command's `CommandProperties`, an uplink's kept ones), else null. */
  properties: string | null;
  /** The command (control log) that set a retained command; null for an uplink. */
  controlLogIntId: number | null;
  /** Epoch ms. */
  updateAt: number;
}

/** `command`: sent to the device (its desired state); `uplink`: published by the device (its last reported value). */
export type RetainedDirection = "command" | "uplink";

/** A firmware package of a product (migration 0032); its bytes are `<data folder>/firmwares/<firmwareId>`. */
export interface FirmwaresTable {
  id: Generated<number>;
  tenantId: string;
  /** Public id (UUID). */
  firmwareId: string;
  firmwareName: string;
  version: string;
  productIntId: number;
  /** Bytes. */
  size: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
  userIntId: number | null;
  createAt: number;
}

/** A group's LoRaWAN multicast session (migration 0033); keys and McAddr as hex digits, McAddr upper case. */
export interface LoraMulticastTable {
  groupIntId: number;
  tenantId: string;
  mcAddr: string;
  /** McNwkSKey. */
  nwkSessionKey: string;
  /** McAppSKey. */
  appSessionKey: string;
  /** The McFCntDown of the next multicast downlink. */
  fcntDown: number;
  /** Region data rate index of the downlinks; null: the region's RX2 data rate. */
  dataRate: number | null;
  /** Hz; null: the region's RX2 frequency. */
  frequency: number | null;
  createAt: number;
  updateAt: number | null;
}
