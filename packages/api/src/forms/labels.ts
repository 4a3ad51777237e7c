import type { Lang } from "../view.js";

type Labels = Record<number, readonly [en: string, zh: string]>;

/** Labels of the enumerated codes (the `…Label` fields), English and Chinese. Form 1 codes. */
export const labels = {
  cloudProtocol: {
    1: ["MQTT", "MQTT"],
    2: ["CoAP", "CoAP"],
    3: ["LwM2M", "LwM2M"],
    4: ["LoRa", "LoRa"],
    5: ["HTTP", "HTTP"],
    6: ["WebSocket", "WebSocket"],
    7: ["Modbus", "Modbus"],
  },
  authType: { 1: ["Token", "密钥"], 2: ["Certificate", "证书"] },
  deviceType: { 1: ["Terminal", "终端"], 2: ["Gateway", "网关"], 3: ["Smartphone", "智能手机"] },
  upLinkSystem: { 1: ["Cloud", "云端"], 2: ["Gateway", "网关"], 3: ["Device", "设备"] },
  deviceStatus: { 0: ["Offline", "离线"], 1: ["Online", "在线"], 2: ["Sleeping", "睡眠"] },
  connectStatus: { 0: ["Offline", "离线"], 1: ["Online", "在线"], 2: ["Authentication failed", "认证失败"] },
  publishStatus: {
    0: ["Failed", "下发失败"],
    1: ["Issued", "已下发"],
    2: ["Delivered", "下发成功"],
    3: ["No acknowledgement needed", "无需回复"],
  },
  blocked: { 0: ["Allowed", "允许访问"], 1: ["Forbidden", "禁止访问"] },
  carrier: {
    1: ["China Telecom", "中国电信"],
    2: ["China Mobile", "中国移动"],
    3: ["China Unicom", "中国联通"],
    4: ["Other", "其他"],
  },
  physicalNetwork: {
    1: ["WIFI", "WIFI"],
    2: ["2G", "2G"],
    3: ["3G", "3G"],
    4: ["4G", "4G"],
    5: ["NB-IOT", "NB-IOT"],
    6: ["BlueTooth", "蓝牙"],
  },
  upLinkNetwork: { 1: ["2G", "2G"], 2: ["3G", "3G"], 3: ["4G", "4G"], 4: ["Wi-Fi", "Wi-Fi"], 5: ["NB-IoT", "NB-IoT"] },
  role: { 1: ["Administrator", "管理员"], 2: ["Operator", "操作员"], 3: ["Viewer", "访客"] },
  /** Policy access, Form 1 codes (Form 2 sends and shows the code minus one). */
  access: { 1: ["Publish", "发布"], 2: ["Subscribe", "订阅"], 3: ["Publish and subscribe", "发布和订阅"] },
  allow: { 0: ["Deny", "拒绝"], 1: ["Allow", "允许"] },
  /** The spec names 1 urgent only; 2–4 are the usual lower levels. */
  alertSeverity: { 1: ["Urgent", "紧急"], 2: ["Major", "主要"], 3: ["Minor", "次要"], 4: ["Warning", "警告"] },
  /** Data point formats; 21–25 are the Modbus types. */
  pointDataType: {
    1: ["Numeric", "数值"],
    3: ["String", "字符串"],
    4: ["Fault", "故障"],
    5: ["Boolean", "布尔"],
    6: ["Geolocation", "地理位置"],
    11: ["Fixed-length string", "定长字符串"],
    12: ["Variable-length string", "变长字符串"],
    13: ["Fixed-length binary", "定长二进制"],
    14: ["Variable-length binary", "变长二进制"],
    15: ["Signed integer", "有符号整数"],
    16: ["Unsigned integer", "无符号整数"],
    17: ["Single-precision float", "单精度浮点数"],
    18: ["Double-precision float", "双精度浮点数"],
    19: ["Bit", "位"],
    21: ["Signed long", "有符号长整型"],
    22: ["Unsigned long", "无符号长整型"],
    23: ["Boolean", "布尔"],
    24: ["Time", "时间"],
    25: ["Float", "浮点数"],
  },
  dataTransType: { 1: ["Report", "上报"], 2: ["Command", "下发"], 3: ["Report and command", "上报和下发"] },
  streamType: {
    1: ["Device report", "设备上报"],
    2: ["Device command", "设备下发"],
    3: ["Gateway report", "网关上报"],
    4: ["Gateway command", "网关下发"],
  },
  streamDataType: { 1: ["JSON", "JSON"], 2: ["Binary", "二进制"] },
  metricType: { 1: ["Formula metric", "公式指标"], 2: ["Aggregate metric", "聚合指标"] },
  aggregateType: {
    1: ["Maximum", "最大值"],
    2: ["Minimum", "最小值"],
    3: ["Average", "平均值"],
    4: ["Accumulated", "累计值"],
  },
  chartType: { 1: ["Line chart", "折线图"], 2: ["Bar chart", "柱状图"] },
  templateType: { 1: ["Switch", "开关"] },
  /** Product resource codes (a digit string; the spec gives no list, so these are the service's own). */
  codeValue: {
    1: ["Status", "状态"],
    2: ["Measurement", "测量值"],
    3: ["Control", "控制"],
    4: ["Alarm", "告警"],
    5: ["Location", "位置"],
  },
} as const satisfies Record<string, Labels>;

/** The label of `code` in `kind` for `lang`, or null for an unset or unknown code. */
export function label(kind: keyof typeof labels, code: number | null | undefined, lang: Lang = "en"): string | null {
  if (code === null || code === undefined) return null;
  const pair = (labels[kind] as Labels)[code];
  return pair ? pair[lang === "zh" ? 1 : 0] : null;
}
