import { mkdtempSync, rmSync } from "node:fs";
import { createSocket } from "node:dgram";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFleet, reachable, type Fleet, type FleetOptions } from "../scripts/fleet.js";

/** A device as the API answers its creation (the members the tests use). */
export interface TestDevice {
  id: number;
  deviceID: string;
  deviceUsername: string;
  token: string;
}

/** A running fleet on free ports over a fresh SQLite file, with a logged-in API client. */
export interface TestFleet {
  fleet: Fleet;
  apiUrl: string;
  mqttUrl: string;
  /** MQTT over TLS (server certificate issued by the service CA; token devices). */
  mqttsUrl: string;
  /** MQTT over mutual TLS (certificate devices). */
  mqttssUrl: string;
  /** MQTT over WebSocket, ending in /mqtt. */
  wsUrl: string;
  /** The HTTP device adapter (POST/GET /topics/…). */
  httpUrl: string;
  /** The CoAP adapter, `coap://host:port`. */
  coapUrl: string;
  /** The CoAP adapter's DTLS (pre-shared key) listener, `coaps://host:port`. */
  coapsUrl: string;
  /** The CoAP adapter's DTLS certificate listener, `coaps://host:port`. */
  coapssUrl: string;
  /** The LwM2M adapter (LwM2M server, CoAP over UDP), `coap://host:port`. */
  lwm2mUrl: string;
  /** The LwM2M adapter's DTLS listener, coaps://127.0.0.1:<port>. */
  lwm2msUrl: string;
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  /** The logged-in admin's bearer token `api` sends (for a client of its own, e.g. a benchmark's). */
  token: string;
  /**
   * Creates a terminal device connected to the cloud with token credentials (`extra` overrides), failing the test
   * otherwise.
   */
  newDevice(productID: string, deviceName: string, extra?: Record<string, unknown>): Promise<TestDevice>;
  close(): Promise<void>;
}

/**
 * Starts `pnpm start`'s fleet as separate processes for an end-to-end test: every adapter, or only `opts.adapters`
 * (each adapter process costs about 2 s of CPU to start, and most files talk to one protocol).
 */
export async function startTestFleet(
  extraEnv: Record<string, string> = {},
  opts: Pick<FleetOptions, "nodeArgs" | "adapters"> = {},
): Promise<TestFleet> {
  const dataDir = mkdtempSync(join(tmpdir(), "e2e-"));
  const fleet = await startFleet(
    {
      IOT_DATA_DIR: dataDir,
      IOT_DATABASE_URL: "",
      IOT_API_HOST: "127.0.0.1",
      IOT_API_PORT: "0",
      IOT_GRPC_PORT: "0",
      IOT_MQTT_PORT: "0",
      IOT_MQTTS_PORT: "0",
      IOT_MQTTSS_PORT: "0",
      IOT_MQTT_WS_PORT: "0",
      IOT_HTTP_DEVICE_PORT: "0",
      IOT_COAP_PORT: "0",
      IOT_COAPS_PORT: "0",
      IOT_COAPSS_PORT: "0",
      IOT_LWM2M_PORT: "0",
      IOT_LWM2M_DTLS_PORT: "0",
      IOT_ADMIN_USERNAME: "admin",
      IOT_ADMIN_PASSWORD: "e2e-admin-pass",
      IOT_LOG_LEVEL: "warn",
      ...extraEnv,
    },
    opts,
  );
  const apiUrl = `${reachable(fleet.central.urls.api!)}/api/v1`;
  const mqttUrls = fleet.adapters.find((a) => a.name === "mqtt-adapter")?.urls ?? {};
  const mqttUrl = reachable(mqttUrls.mqtt ?? "");
  let token = "";
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const login = await api("POST", "/login", { username: "admin", password: "e2e-admin-pass" });
  if (login.status !== 201) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  token = login.body.token;
  return {
    fleet,
    apiUrl,
    mqttUrl,
    mqttsUrl: reachable(mqttUrls.mqtts ?? ""),
    mqttssUrl: reachable(mqttUrls.mqttss ?? ""),
    wsUrl: reachable(mqttUrls.ws ?? ""),
    httpUrl: reachable(fleet.adapters.find((a) => a.name === "http-adapter")?.urls.http ?? ""),
    coapUrl: reachable(fleet.adapters.find((a) => a.name === "coap-adapter")?.urls.coap ?? ""),
    coapsUrl: reachable(fleet.adapters.find((a) => a.name === "coap-adapter")?.urls.coaps ?? ""),
    coapssUrl: reachable(fleet.adapters.find((a) => a.name === "coap-adapter")?.urls.coapss ?? ""),
    lwm2mUrl: reachable(fleet.adapters.find((a) => a.name === "lwm2m-adapter")?.urls.lwm2m ?? ""),
    lwm2msUrl: reachable(fleet.adapters.find((a) => a.name === "lwm2m-adapter")?.urls.lwm2ms ?? ""),
    api,
    token,
    async newDevice(productID, deviceName, extra = {}) {
      const r = await api("POST", "/devices", {
        productID,
        deviceName,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
        ...extra,
      });
      if (r.status !== 201) throw new Error(`device ${deviceName} not created: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as TestDevice;
    },
    async close() {
      await fleet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP port, and the UDP port of the same number, both free right now and held: the fleet's listeners are TCP
 * (API, gRPC, MQTT, HTTP) or UDP (CoAP, DTLS, LoRa), and a port only TCP found free may be another process's UDP
 * socket (the ephemeral ranges are shared).
 */
async function holdFreePort(): Promise<{ port: number; release: () => Promise<void> }> {
  for (;;) {
    const tcp = createServer();
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    const port = (tcp.address() as AddressInfo).port;
    const udp = createSocket("udp4");
    const bound = await new Promise<boolean>((r) => {
      udp.once("error", () => r(false));
      udp.bind(port, "127.0.0.1", () => r(true));
    });
    const release = async () => {
      await new Promise<void>((r) => tcp.close(() => r()));
      if (bound) await new Promise<void>((r) => udp.close(() => r()));
    };
    if (bound) return { port, release };
    await release();
  }
}

/** A port free right now (TCP and UDP), for a process that must know its port before it starts, or be told it. */
export async function freePort(): Promise<number> {
  const held = await holdFreePort();
  await held.release();
  return held.port;
}

/** `n` different ports free right now: all are held until the last is found, so none is answered twice. */
export async function freePorts(n: number): Promise<number[]> {
  const held = await Promise.all(Array.from({ length: n }, holdFreePort));
  await Promise.all(held.map((h) => h.release()));
  return held.map((h) => h.port);
}
