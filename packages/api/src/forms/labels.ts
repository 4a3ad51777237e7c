/** English labels of the enumerated codes (the `…Label` fields). */
export const labels = {
  cloudProtocol: { 1: "MQTT", 2: "CoAP", 3: "LwM2M", 4: "LoRa", 5: "HTTP", 6: "WebSocket", 7: "Modbus" },
  authType: { 1: "Token", 2: "Certificate" },
  deviceType: { 1: "Terminal", 2: "Gateway", 3: "Smartphone" },
  upLinkSystem: { 1: "Cloud", 2: "Gateway", 3: "Device" },
  deviceStatus: { 0: "Offline", 1: "Online", 2: "Sleeping" },
  connectStatus: { 0: "Offline", 1: "Online", 2: "Authentication failed" },
  publishStatus: { 0: "Failed", 1: "Issued", 2: "Delivered", 3: "No acknowledgement needed" },
} as const satisfies Record<string, Record<number, string>>;

/** The label of `code` in `kind`, or null for an unset or unknown code. */
export function label(kind: keyof typeof labels, code: number | null | undefined): string | null {
  if (code === null || code === undefined) return null;
  return (labels[kind] as Record<number, string>)[code] ?? null;
}
