import { coapProtocol } from "./protocols/coap.js";
import { httpProtocol } from "./protocols/http.js";
import { lorawanProtocol } from "./protocols/lorawan.js";
import { lwm2mProtocol } from "./protocols/lwm2m.js";
import { modbusProtocol } from "./protocols/modbus.js";
import { mqttProtocol } from "./protocols/mqtt.js";
import type { SimProtocol } from "./sim-protocol.js";

/** The protocols `iot simulate --protocol` knows, by name: a new one is a file in protocols/ and a line here. */
export const SIM_PROTOCOLS: ReadonlyMap<string, SimProtocol> = new Map(
  [mqttProtocol, coapProtocol, httpProtocol, lwm2mProtocol, modbusProtocol, lorawanProtocol].map((p: SimProtocol) => [
    p.name,
    p,
  ]),
);
