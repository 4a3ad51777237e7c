import type { Rec } from "./api.ts";

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? "";

/** The API's record form (`IOT_API_FORM`), written into the page by the central node. */
export const FORM: "1" | "2" = meta("iot-api-form") === "2" ? "2" : "1";

/** Device listener addresses (`mqttBroker` → `host:port`, "" when off), written into the page by the central node. */
export const BROKERS: Record<string, string> = (() => {
  try {
    return JSON.parse(meta("iot-brokers")) as Record<string, string>;
  } catch {
    return {};
  }
})();

/** A device's online state in either form: Form 1 `deviceStatus` (0, 1, 2 sleeping), Form 2 `status` (0, 1). */
export function deviceStatus(d: Rec): { code: number; label: string } {
  return FORM === "2"
    ? { code: Number(d.status ?? 0), label: String(d.statusLabel ?? "") }
    : { code: Number(d.deviceStatus ?? 0), label: String(d.deviceStatusLabel ?? "") };
}

/** A connect log's status in either form (0 offline, 1 online, 2 authentication failed). */
export function connectStatus(l: Rec): { code: number; label: string } {
  return FORM === "2"
    ? { code: Number(l.deviceStatus ?? 0), label: String(l.deviceStatusLabel ?? "") }
    : { code: Number(l.connectStatus ?? 0), label: String(l.connectStatusLabel ?? "") };
}

/** The field the device list sorts by for the online state. */
export const STATUS_SORT = "deviceStatus";
