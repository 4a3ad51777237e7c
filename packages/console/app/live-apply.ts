import type { Rec } from "./api.ts";
import { FORM } from "./deployment.ts";
import { t } from "./i18n.ts";
import type { LiveEvent } from "./live.ts";

/** Epoch ms → `YYYY-MM-DD HH:MM:SS` (UTC), the API's date form. */
export const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** A device record after an `online` or `offline` event: its status (either form's field), address and since when. */
export function withConnectivity(d: Rec, e: LiveEvent): Rec {
  const on = e.type === "online";
  const label = on ? t("online") : t("offline");
  const status =
    FORM === "2" ? { status: on ? 1 : 0, statusLabel: label } : { deviceStatus: on ? 1 : 0, deviceStatusLabel: label };
  return {
    ...d,
    ...status,
    clientIP: on ? (e.data.ip ?? d.clientIP) : null,
    connectedAt: on ? apiTime(e.time) : null,
  };
}

/** The connect log row an `online`/`offline` event stands for (either form's status field). */
export function connectLogOf(e: LiveEvent): Rec {
  const code = e.type === "online" ? 1 : 0;
  const label = code ? t("online") : t("offline");
  const status =
    FORM === "2"
      ? { deviceStatus: String(code), deviceStatusLabel: label }
      : { connectStatus: code, connectStatusLabel: label };
  return { id: `live-${e.id}`, createAt: apiTime(e.time), IP: e.data.ip ?? "", ...status };
}

/** The event row an `uplink` event stands for (payload decoded from base64 as UTF-8 text). */
export function uplinkOf(e: LiveEvent): Rec {
  let payload: string;
  try {
    payload = new TextDecoder().decode(Uint8Array.from(atob(String(e.data.payload ?? "")), (c) => c.charCodeAt(0)));
  } catch {
    payload = String(e.data.payload ?? "");
  }
  const time = apiTime(e.time);
  return { id: `live-${e.id}`, msgTime: time, createAt: time, topic: e.data.topic, payload };
}

/** Labels of publishStatus codes, for results the stream reports (the API's labels come with loaded rows). */
export function publishStatusLabel(code: string): string {
  return { "0": t("failed"), "1": t("issued"), "2": t("delivered"), "3": t("sent") }[code] ?? code;
}

/** Adds `row` first to a list of at most `max` rows. */
export const prepend = (rows: Rec[] | undefined, row: Rec, max = 10) => [row, ...(rows ?? [])].slice(0, max);
