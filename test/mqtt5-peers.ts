/**
 * The third-party MQTT 5.0 peers test/mqtt5-clients.test.ts drives: a command-line client run to its end, Debian's
 * python3-paho-mqtt (MQTTv5) as a child process reporting its packets as JSON lines, and a raw connection built with
 * mqtt-packet for input no client library would send.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { connect as netConnect } from "node:net";
import mqttPacket, { type IConnackPacket, type Packet } from "mqtt-packet";

const PYTHON = "/usr/bin/python3";

/** Runs a command to its end (or `timeoutMs`); answers its exit code and output. */
export function run(file: string, args: string[], timeoutMs = 20_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/**
 * The events (JSON lines) a paho MQTTv5 client reports: its CONNACK, SUBACK, PUBACK and messages (one that came with a
 * Topic Alias also with the alias and the topic name as sent, its topic resolved by the script).
 */
const PAHO_CLIENT = `
import json, sys
import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.packettypes import PacketTypes
o = json.loads(sys.argv[1])
# paho 1.6.1 hands a PUBLISH's Topic Alias to the application as it came: the application resolves it.
aliases, received = {}, [0]
c = mqtt.Client(client_id=o["clientId"], protocol=mqtt.MQTTv5, transport=o.get("transport", "tcp"))
if o.get("transport") == "websockets":
    c.ws_set_options(path="/mqtt")
if o.get("ca"):
    c.tls_set(ca_certs=o["ca"])
c.username_pw_set(o["username"], o["password"])
def out(**kw):
    print(json.dumps(kw), flush=True)
def publish():
    if o.get("publish"):
        c.publish(o["publish"]["topic"], o["publish"]["payload"], qos=1)
    else:
        out(event="ready")
def on_connect(c, u, flags, rc, props):
    names = ["MaximumPacketSize", "TopicAliasMaximum", "ReceiveMaximum", "SharedSubscriptionAvailable", "ReasonString"]
    out(event="connack", rc=rc.value, props={n: getattr(props, n) for n in names if hasattr(props, n)})
    if rc.value != 0:
        c.disconnect()
    elif o.get("subscribe"):
        c.subscribe(o["subscribe"], qos=1)
    else:
        publish()
def on_subscribe(c, u, mid, rcs, props):
    out(event="suback", rcs=[r.value for r in rcs])
    publish()
def on_publish(c, u, mid):
    out(event="puback")
    if not o.get("subscribe"):
        c.disconnect()
def on_message(c, u, m):
    alias = getattr(m.properties, "TopicAlias", None)
    if alias is None:
        out(event="message", topic=m.topic, payload=m.payload.decode())
    else:
        aliases[alias] = m.topic or aliases.get(alias, "")
        out(event="message", topic=aliases[alias], payload=m.payload.decode(), alias=alias, sentTopic=m.topic)
    received[0] += 1
    if received[0] >= o.get("messages", 1):
        c.disconnect()
c.on_connect, c.on_subscribe, c.on_publish, c.on_message = on_connect, on_subscribe, on_publish, on_message
props = None
if o.get("topicAliasMaximum"):
    props = Properties(PacketTypes.CONNECT)
    props.TopicAliasMaximum = o["topicAliasMaximum"]
c.connect(o["host"], o["port"], keepalive=30, properties=props)
c.loop_forever()
`;

interface PahoOptions {
  host: string;
  port: number;
  transport?: "tcp" | "websockets";
  ca?: string;
  clientId: string;
  username: string;
  password: string;
  subscribe?: string;
  publish?: { topic: string; payload: string };
  /** Messages to receive before disconnecting (default 1). */
  messages?: number;
  /** CONNECT's Topic Alias Maximum: the aliases the client accepts from the service (default none). */
  topicAliasMaximum?: number;
}

/** Starts a paho client; `events` resolves with its report once it exits, `next` with an event of a kind. */
export function paho(options: PahoOptions) {
  const child = spawn(PYTHON, ["-c", PAHO_CLIENT, JSON.stringify(options)], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  const seen: ((e: Record<string, unknown>) => void)[] = [];
  let buffered = "";
  child.stdout.on("data", (b: Buffer) => {
    buffered += b.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const event = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      lines.push(event);
      for (const s of seen) s(event);
    }
  });
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const timer = setTimeout(() => child.kill(), 20_000);
  const events = once(child, "exit").then(() => {
    clearTimeout(timer);
    if (stderr) throw new Error(`paho: ${stderr}`);
    return lines;
  });
  /** The `nth` (from 1) event of the kind, already reported or still to come. */
  const next = (event: string, nth = 1) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const nthSeen = () => lines.filter((l) => l.event === event)[nth - 1];
      const found = nthSeen();
      if (found) return resolve(found);
      seen.push((e) => e.event === event && nthSeen() === e && resolve(e));
    });
  return { events, next };
}

/** A raw MQTT 5.0 connection that sent CONNECT; answers its CONNACK (undefined if none came) and what it received. */
export async function rawV5(port: number, d: { deviceID: string; deviceUsername: string; token: string }) {
  const socket = netConnect(port, "127.0.0.1");
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  const received: Packet[] = [];
  parser.on("packet", (p) => received.push(p));
  socket.on("data", (b) => parser.parse(b));
  socket.on("error", () => undefined);
  const closed = once(socket, "close").then(() => undefined);
  await once(socket, "connect");
  socket.write(
    mqttPacket.generate(
      {
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 5,
        clean: true,
        keepalive: 30,
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: Buffer.from(d.token),
      },
      { protocolVersion: 5 },
    ),
  );
  const connack = await new Promise<IConnackPacket | undefined>((resolve) => {
    parser.on("packet", (p) => p.cmd === "connack" && resolve(p));
    void closed.then(() => resolve(undefined));
  });
  return { socket, received, closed, connack, destroy: () => socket.destroy() };
}
