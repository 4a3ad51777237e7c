import { integer, text, type ConfigOf } from "@iot/config";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/** Settings of the Modbus adapter process: the shared adapter settings plus the gateway it polls for. */
export const modbusAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_MODBUS_METRICS_PORT"),
  gatewayId: text(
    "IOT_MODBUS_GATEWAY_ID",
    undefined,
    "deviceID of the Modbus gateway (gatewayProtocol 7) this adapter polls for; required",
  ),
  gatewayUsername: text(
    "IOT_MODBUS_GATEWAY_USERNAME",
    undefined,
    "deviceUsername of the gateway; unset, IOT_MODBUS_GATEWAY_ID is used",
  ),
  gatewayToken: text("IOT_MODBUS_GATEWAY_TOKEN", undefined, "token of the gateway; required"),
  reportEvery: integer(
    "IOT_MODBUS_REPORT_EVERY",
    60,
    "seconds between two reports of all of a slave's values (changed values are reported at once)",
    1,
    86_400,
  ),
};

/** The typed values of modbusAdapterSettings. */
export type ModbusAdapterConfig = ConfigOf<typeof modbusAdapterSettings>;
