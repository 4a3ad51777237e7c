import type { Migration } from "kysely/migration";
import { initial } from "./0001-initial.js";
import { management } from "./0002-management.js";
import { dataModel } from "./0003-data-model.js";
import { tasks } from "./0004-tasks.js";
import { uniqueImei } from "./0005-unique-imei.js";
import { tokenGeneration } from "./0006-token-generation.js";
import { series } from "./0007-series.js";
import { modbus } from "./0008-modbus.js";
import { schedules } from "./0009-schedules.js";
import { lora } from "./0010-lora.js";
import { northbound } from "./0011-northbound.js";
import { tenantQuotas } from "./0012-tenant-quotas.js";
import { eventMetadata } from "./0013-event-metadata.js";
import { cluster } from "./0014-cluster.js";
import { listIndexes } from "./0016-list-indexes.js";
import { resendId } from "./0017-resend-id.js";
import { commandHandover } from "./0018-command-handover.js";
import { outboxUplinkRef } from "./0019-outbox-uplink-ref.js";
import { outboxNoTimeIndex } from "./0020-outbox-no-time-index.js";
import { outboxUplinkRanges } from "./0021-outbox-uplink-ranges.js";
import { deviceNameTrigrams } from "./0022-device-name-trigrams.js";
import { deviceIdTrigrams } from "./0023-device-id-trigrams.js";
import { uplinkCounts } from "./0024-uplink-counts.js";
import { mqttSessions } from "../mqtt-sessions.js";
import { retainedMessages } from "./0030-retained-messages.js";
import { lwm2mBootstrap } from "./0031-lwm2m-bootstrap.js";
import { firmwares } from "./0032-firmwares.js";
import { loraMulticast } from "./0033-lora-multicast.js";
import { partitionedHistory } from "./0034-partitioned-history.js";
import { commandProperties, exportFileSecrets, loraGateways, metricsProduct } from "../shared-indexes.js";

/**
 * Every PostgreSQL migration, by name. Names sort in the order they run; a
 * new migration is one new file here plus one line below (or, when its SQL
 * is the same on both engines, one in ../shared-indexes.ts). Never edit or
 * rename a migration that has shipped: databases remember the names they ran.
 */
export const postgresMigrations: Readonly<Record<string, Migration>> = {
  "0001-initial": initial,
  "0002-management": management,
  "0003-data-model": dataModel,
  "0004-tasks": tasks,
  "0005-unique-imei": uniqueImei,
  "0006-token-generation": tokenGeneration,
  "0007-series": series,
  "0008-modbus": modbus,
  "0009-schedules": schedules,
  "0010-lora": lora,
  "0011-northbound": northbound,
  "0012-tenant-quotas": tenantQuotas,
  "0013-event-metadata": eventMetadata,
  "0014-cluster": cluster,
  "0016-list-indexes": listIndexes,
  "0017-resend-id": resendId,
  "0018-command-handover": commandHandover,
  "0019-outbox-uplink-ref": outboxUplinkRef,
  "0020-outbox-no-time-index": outboxNoTimeIndex,
  "0021-outbox-uplink-ranges": outboxUplinkRanges,
  "0022-device-name-trigrams": deviceNameTrigrams,
  "0023-device-id-trigrams": deviceIdTrigrams,
  "0024-uplink-counts": uplinkCounts,
  "0025-metrics-product": metricsProduct,
  "0026-lora-gateways": loraGateways,
  "0027-export-file-secrets": exportFileSecrets,
  "0028-command-properties": commandProperties,
  "0029-mqtt-sessions": mqttSessions,
  "0030-retained-messages": retainedMessages,
  "0031-lwm2m-bootstrap": lwm2mBootstrap,
  "0032-firmwares": firmwares,
  "0033-lora-multicast": loraMulticast,
  "0034-partitioned-history": partitionedHistory,
};
