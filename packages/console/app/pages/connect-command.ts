import type { Rec } from "../api.ts";

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Splits `host:port`; an empty or missing address gives undefined (that listener is off). */
function hostPort(addr: unknown, defaultPort: number): { host: string; port: string } {
  const s = typeof addr === "string" ? addr : "";
  const i = s.lastIndexOf(":");
  if (!s || i < 0) return { host: location.hostname, port: String(defaultPort) };
  return { host: s.slice(0, i), port: s.slice(i + 1) };
}

/**
 * The command line that connects the device with its own credentials, for its protocol (Form 1 `cloudProtocol`;
 * Form 2 devices are MQTT): mosquitto for MQTT, curl for HTTP, coap-client for CoAP. Addresses come from the
 * deployment's advertised brokers (`mqttBroker`, `coapBroker`); undefined for protocols a person does not type
 * (LoRa, Modbus) or certificate devices.
 */
export function connectionCommand(d: Rec, brokers: Rec): string | undefined {
  const protocol = Number(d.cloudProtocol ?? 1);
  const id = String(d.deviceID ?? "");
  const user = String(d.deviceUsername ?? "");
  const token = String(d.token ?? "");
  if (Number(d.authType) === 2) {
    const m = hostPort(brokers.mqttssBroker, 8884);
    return `mosquitto_sub -h ${m.host} -p ${m.port} -i ${shellQuote(id)} --cafile root_ca.crt --cert device.crt --key device.key -t inbox -q 1 -v`;
  }
  if (protocol === 1 || protocol === 6) {
    const m = hostPort(brokers.mqttBroker, 1883);
    const auth = `-h ${m.host} -p ${m.port} -i ${shellQuote(id)} -u ${shellQuote(user)} -P ${shellQuote(token)}`;
    return [
      `mosquitto_sub ${auth} -t inbox -q 1 -v`,
      `mosquitto_pub ${auth} -t telemetry -q 1 -m '{"temperature": 21.5}'`,
    ].join("\n");
  }
  if (protocol === 5) {
    return `curl -u ${shellQuote(`${user}:${token}`)} --data-binary '{"temperature": 21.5}' http://${location.hostname}:8081/topics/telemetry`;
  }
  if (protocol === 2) {
    const c = hostPort(brokers.coapBroker, 5683);
    return `coap-client-notls -m post -O 15,c=${id} -O 15,u=${user} -O 15,p=${token} -e '{"temperature": 21.5}' coap://${c.host}:${c.port}/mqtt/telemetry`;
  }
  if (protocol === 3)
    return `# LwM2M: register with endpoint name ${String(d.IMEI ?? "<IMEI>")} at coap://${location.hostname}:5783/rd`;
  return undefined;
}
