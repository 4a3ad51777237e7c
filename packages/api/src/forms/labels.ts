import type { Lang } from "../view.js";

type Labels = Record<number, readonly [en: string, zh: string]>;

/** Labels of the enumerated codes (the `…Label` fields), English and Chinese. Form 1 codes. */
export const labels = {
  cloudProtocol: { 1: ["MQTT", "MQTT"], 2: ["CoAP", "CoAP"], 3: ["LwM2M", "LwM2M"], 4: ["LoRa", "LoRa"], 5: ["HTTP", "HTTP"], 6: ["WebSocket", "WebSocket"], 7: ["Modbus", "Modbus"] },
  authType: { 1: ["Token", "密钥"], 2: ["Certificate", "证书"] },
  deviceType: { 1: ["Terminal", "终端"], 2: ["Gateway", "网关"], 3: ["Smartphone", "智能手机"] },
  upLinkSystem: { 1: ["Cloud", "云端"], 2: ["Gateway", "网关"], 3: ["Device", "设备"] },
  deviceStatus: { 0: ["Offline", "离线"], 1: ["Online", "在线"], 2: ["Sleeping", "睡眠"] },
  connectStatus: { 0: ["Offline", "离线"], 1: ["Online", "在线"], 2: ["Authentication failed", "认证失败"] },
  publishStatus: { 0: ["Failed", "下发失败"], 1: ["Issued", "已下发"], 2: ["Delivered", "下发成功"], 3: ["No acknowledgement needed", "无需回复"] },
  blocked: { 0: ["Allowed", "允许访问"], 1: ["Forbidden", "禁止访问"] },
  carrier: { 1: ["China Telecom", "中国电信"], 2: ["China Mobile", "中国移动"], 3: ["China Unicom", "中国联通"], 4: ["Other", "其他"] },
  physicalNetwork: { 1: ["WIFI", "WIFI"], 2: ["2G", "2G"], 3: ["3G", "3G"], 4: ["4G", "4G"], 5: ["NB-IOT", "NB-IOT"], 6: ["BlueTooth", "蓝牙"] },
  upLinkNetwork: { 1: ["2G", "2G"], 2: ["3G", "3G"], 3: ["4G", "4G"], 4: ["Wi-Fi", "Wi-Fi"], 5: ["NB-IoT", "NB-IoT"] },
  role: { 1: ["Administrator", "管理员"], 2: ["Operator", "操作员"], 3: ["Viewer", "访客"] },
} as const satisfies Record<string, Labels>;

/** The label of `code` in `kind` for `lang`, or null for an unset or unknown code. */
export function label(kind: keyof typeof labels, code: number | null | undefined, lang: Lang = "en"): string | null {
  if (code === null || code === undefined) return null;
  const pair = (labels[kind] as Labels)[code];
  return pair ? pair[lang === "zh" ? 1 : 0] : null;
}
