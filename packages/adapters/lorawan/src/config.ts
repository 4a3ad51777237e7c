import { integer, port, text, type ConfigOf } from "@iot/config";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/** Settings of the LoRaWAN adapter process: the shared adapter settings plus the network server's own. */
export const lorawanAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_LORAWAN_METRICS_PORT"),
  udpPort: port("IOT_LORA_UDP_PORT", 1700, "Semtech UDP packet-forwarder port for LoRa gateways; 0 picks a free one"),
  udpHost: text("IOT_LORA_UDP_HOST", "0.0.0.0", "address the packet-forwarder listener binds to"),
  basicsPort: integer(
    "IOT_LORA_BASICS_PORT",
    -1,
    "LoRa Basics Station (LNS protocol over WebSocket) port; -1 (default): off, 0 picks a free one",
    -1,
    65535,
  ),
  basicsHost: text("IOT_LORA_BASICS_HOST", "0.0.0.0", "address the Basics Station listener binds to"),
  basicsRegion: text(
    "IOT_LORA_BASICS_REGION",
    "EU868",
    "region of the channel plan sent to Basics Station gateways in router_config (EU868, US915, AU915, AS923-1, ...)",
  ),
  basicsToken: text(
    "IOT_LORA_BASICS_TOKEN",
    undefined,
    "when set, Basics Station gateways must send this as their Authorization header (the station's tc.key)",
  ),
  basicsTlsCert: text(
    "IOT_LORA_BASICS_TLS_CERT",
    undefined,
    "PEM certificate file: the station endpoint speaks wss://",
  ),
  basicsTlsKey: text("IOT_LORA_BASICS_TLS_KEY", undefined, "PEM private key file of IOT_LORA_BASICS_TLS_CERT"),
  netId: text("IOT_LORA_NET_ID", "000000", "the network's NetID (6 hex digits): sent in JoinAccepts, DevAddr prefix"),
  gatewayTimeout: integer(
    "IOT_LORA_GATEWAY_TIMEOUT",
    90,
    "seconds without a PULL_DATA keepalive after which a gateway goes offline (forwarders send one every 10 s)",
    5,
    86_400,
  ),
  deviceTimeout: integer(
    "IOT_LORA_DEVICE_TIMEOUT",
    7_200,
    "seconds without an uplink after which a LoRa device goes offline",
    10,
    2_592_000,
  ),
  devStatusEvery: integer(
    "IOT_LORA_DEV_STATUS_EVERY",
    100,
    "ask a device for its battery and margin (DevStatusReq) on its first uplink and every this many; 0 never",
    0,
    1_000_000,
  ),
};

/** The typed values of lorawanAdapterSettings. */
export type LorawanAdapterConfig = ConfigOf<typeof lorawanAdapterSettings>;
