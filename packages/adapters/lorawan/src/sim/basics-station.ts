import { EventEmitter } from "node:events";
import WebSocket from "ws";
import { REGIONS, type RegionName } from "../codec/region.js";
import {
  parseEui,
  parseStationJson,
  stringifyStation,
  wide,
  type StationObject,
} from "../server/basics-station/station-json.js";
import { stationFrameFields } from "./basics-station-frames.js";

/** Options of {@link SimulatedBasicsStation}. */
export interface SimulatedBasicsStationOptions {
  /** The router EUI (16 hex digits): the gateway's id. */
  routerEui: string;
  /** The LNS discovery base, as a station's tc.uri: `ws://host:port`. */
  url: string;
  /** Sent as the `Authorization` header (the station's tc.key). */
  token?: string;
  /** CA certificate(s) to trust for wss:// (tc.trust). */
  ca?: Buffer;
  /** The region whose DR table maps the radio settings of uplinks (default EU868). */
  region?: RegionName;
  /** The top byte of every xtime (the station's session id, default 0x5A, so xtimes exceed 2^53). */
  sessionId?: number;
}

/** Radio metadata of a simulated uplink (defaults 868.1 MHz, DR5, −60 dBm, 7 dB). */
export interface StationRadio {
  freqHz?: number;
  dr?: number;
  rssi?: number;
  snr?: number;
  /** GPS time of reception, µs since the GPS epoch: a station with a PPS (default 0, none). */
  gpstime?: bigint;
}

/** A `dnmsg` received, with what the simulated station decided about it. */
export interface StationDownlink {
  msg: StationObject;
  pdu: Buffer;
  /**
   * Class A: sent in RX1 (arrived before RX1 opens and had RX1 parameters) or RX2; class B: at `gpstime`; class C:
   * immediate.
   */
  window: "rx1" | "rx2" | "classB" | "classC" | "missed";
  /** Class B: the GPS time (µs) to send at. */
  gpstime?: bigint;
  /** The station's xtime when the dnmsg arrived, and when it goes on air (class A), µs with the session byte. */
  arrivedXtime: bigint;
  txXtime?: bigint;
  freqHz: number;
  dr: number;
}

/** Events of {@link SimulatedBasicsStation}. */
export interface SimulatedBasicsStationEvents {
  downlink: [StationDownlink];
  message: [StationObject];
  closed: [{ code: number; reason: string }];
}

/**
 * A simulated LoRa Basics Station written from the LNS protocol documentation: discovery at `/router-info`, a data
 * connection that starts with `version` and waits for `router_config`, uplinks as jreq/updf/propdf with upinfo
 * (xtime from a µs clock with a session byte on top), `dnmsg` downlinks judged against the RX1/RX2 times of the
 * uplink they answer and confirmed with `dntxed` (sent at once, without waiting for the air time), and `timesync`.
 */
export class SimulatedBasicsStation extends EventEmitter<SimulatedBasicsStationEvents> {
  readonly routerEui: string;
  routerConfig?: StationObject;
  /** Downlinks received, in order. */
  readonly downlinks: StationDownlink[] = [];
  #ws?: WebSocket;
  readonly #start = performance.now();
  readonly #session: bigint;
  #waiters: ((d: StationDownlink) => void)[] = [];
  #closed?: Promise<{ code: number; reason: string }>;

  constructor(private readonly options: SimulatedBasicsStationOptions) {
    super();
    const eui = parseEui(options.routerEui);
    if (!eui.ok) throw new Error(eui.reason);
    this.routerEui = eui.value;
    this.#session = BigInt(options.sessionId ?? 0x5a) << 56n;
  }

  /** The station's µs clock with its session byte: what upinfo.xtime and dnmsg.xtime are counted in. */
  xtime(): bigint {
    return this.#session | BigInt(Math.round((performance.now() - this.#start) * 1000));
  }

  #open(path: string): WebSocket {
    return new WebSocket(new URL(path, this.options.url), {
      ...(this.options.token ? { headers: { Authorization: this.options.token } } : {}),
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
  }

  /** Asks `/router-info` where to connect; the answer as the LNS sent it (`uri`, or `error`). */
  discover(router: unknown = this.routerEui): Promise<StationObject | Record<string, unknown>> {
    const ws = this.#open("/router-info");
    return new Promise((resolve, reject) => {
      ws.once("open", () => ws.send(stringifyStation({ router })));
      ws.once("message", (data) => resolve(JSON.parse((data as Buffer).toString("utf8")) as Record<string, unknown>));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /** Discovery, then the data connection: sends `version` and resolves with the `router_config`. */
  async connect(): Promise<StationObject> {
    const info = await this.discover();
    if (typeof info.uri !== "string") throw new Error(`discovery refused: ${String(info.error)}`);
    const ws = this.#open(info.uri);
    this.#ws = ws;
    this.#closed = new Promise((resolve) =>
      ws.once("close", (code, reason) => {
        const c = { code, reason: reason.toString() };
        this.emit("closed", c);
        resolve(c);
      }),
    );
    ws.on("message", (data) => this.#onMessage((data as Buffer).toString("utf8")));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    const config = new Promise<StationObject>((resolve, reject) => {
      const onMsg = (m: StationObject) => m.msgtype === "router_config" && (this.off("message", onMsg), resolve(m));
      this.on("message", onMsg);
      void this.#closed!.then((c) => reject(new Error(`closed before router_config: ${c.code} ${c.reason}`)));
    });
    this.send({
      msgtype: "version",
      station: "sim-2.0.6",
      firmware: "sim",
      package: "",
      model: "sim",
      protocol: 2,
      features: "",
    });
    this.routerConfig = await config;
    return this.routerConfig;
  }

  /** Sends a message object (bigints exact). */
  send(message: object): void {
    this.#ws!.send(stringifyStation(message));
  }

  /** Sends a text record as it is (for malformed-input tests). */
  sendRaw(text: string | Buffer): void {
    this.#ws!.send(text);
  }

  /** Reports a heard frame; resolves with the upinfo sent (its xtime is what a class A dnmsg must echo). */
  uplink(phy: Buffer, radio: StationRadio = {}): { xtime: bigint; rctx: bigint } {
    const upinfo = {
      rctx: 0n,
      xtime: this.xtime(),
      gpstime: radio.gpstime ?? 0n,
      rssi: radio.rssi ?? -60,
      snr: radio.snr ?? 7,
    };
    this.send({ ...stationFrameFields(phy), DR: radio.dr ?? 5, Freq: radio.freqHz ?? 868_100_000, upinfo, RefTime: 0 });
    return upinfo;
  }

  /** Sends `timesync` and resolves with the LNS's answer (txtime echoed, gpstime in µs). */
  timesync(): Promise<{ txtime: bigint; gpstime: bigint }> {
    const txtime = this.xtime();
    return new Promise((resolve) => {
      const onMsg = (m: StationObject) => {
        if (m.msgtype !== "timesync" || wide(m, "txtime") !== txtime) return;
        this.off("message", onMsg);
        resolve({ txtime, gpstime: wide(m, "gpstime") ?? -1n });
      };
      this.on("message", onMsg);
      this.send({ msgtype: "timesync", txtime });
    });
  }

  /** The next downlink not yet taken (waits up to `timeoutMs`). */
  nextDownlink(timeoutMs = 8_000): Promise<StationDownlink> {
    const queued = this.downlinks.find((d) => !(d as { taken?: boolean }).taken);
    if (queued) {
      (queued as { taken?: boolean }).taken = true;
      return Promise.resolve(queued);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no dnmsg within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push((d) => {
        clearTimeout(timer);
        (d as { taken?: boolean }).taken = true;
        resolve(d);
      });
    });
  }

  /** Resolves when the LNS closes the data connection. */
  get closed(): Promise<{ code: number; reason: string }> {
    return this.#closed ?? Promise.resolve({ code: 0, reason: "never connected" });
  }

  async close(): Promise<void> {
    if (!this.#ws || this.#ws.readyState === WebSocket.CLOSED) return;
    this.#ws.close(1000);
    await this.closed;
  }

  #onMessage(text: string): void {
    const parsed = parseStationJson(text);
    if (!parsed.ok) return;
    this.emit("message", parsed.value);
    if (parsed.value.msgtype === "dnmsg") this.#onDnmsg(parsed.value);
  }

  /** Picks the window as a station does: RX1 when its parameters are there and it has not opened yet, else RX2. */
  #onDnmsg(m: StationObject): void {
    const arrived = this.xtime();
    const num = (k: string) => {
      const v = m[k];
      return typeof v === "number" ? v : undefined;
    };
    const xtime = wide(m, "xtime");
    const delayUs = BigInt(Math.max(1, num("RxDelay") ?? 1)) * 1_000_000n;
    let d: StationDownlink;
    const pdu = Buffer.from(String(m.pdu), "hex");
    const gpstime = wide(m, "gpstime");
    if (num("dC") === 1 && gpstime !== undefined) {
      d = { msg: m, pdu, window: "classB", arrivedXtime: arrived, gpstime, freqHz: num("Freq")!, dr: num("DR")! };
    } else if (num("dC") === 2 && xtime === undefined) {
      d = { msg: m, pdu, window: "classC", arrivedXtime: arrived, freqHz: num("RX2Freq")!, dr: num("RX2DR")! };
    } else if (xtime !== undefined && num("RX1Freq") !== undefined && arrived < xtime + delayUs) {
      d = {
        msg: m,
        pdu,
        window: "rx1",
        arrivedXtime: arrived,
        txXtime: xtime + delayUs,
        freqHz: num("RX1Freq")!,
        dr: num("RX1DR")!,
      };
    } else if (xtime !== undefined && num("RX2Freq") !== undefined && arrived < xtime + delayUs + 1_000_000n) {
      d = {
        msg: m,
        pdu,
        window: "rx2",
        arrivedXtime: arrived,
        txXtime: xtime + delayUs + 1_000_000n,
        freqHz: num("RX2Freq")!,
        dr: num("RX2DR")!,
      };
    } else d = { msg: m, pdu, window: "missed", arrivedXtime: arrived, freqHz: 0, dr: -1 };
    if (d.window !== "missed")
      this.send({
        msgtype: "dntxed",
        diid: wide(m, "diid") ?? 0n,
        DevEui: m.DevEui,
        rctx: 0n,
        xtime: d.txXtime ?? arrived,
        txtime: 0,
        gpstime: 0n,
      });
    this.downlinks.push(d);
    const w = this.#waiters.shift();
    if (w) w(d);
    this.emit("downlink", d);
  }
}

/** The DR index of a region's SF/BW, for {@link StationRadio.dr} (e.g. SF7BW125 is DR5 in EU868, DR3 in US915). */
export function stationDr(region: RegionName, sf: number, bwKHz = 125): number {
  for (const [dr, r] of Object.entries(REGIONS[region].uplinkDataRates))
    if (r.modu === "LORA" && r.sf === sf && r.bwKHz === bwKHz) return Number(dr);
  throw new Error(`SF${sf}BW${bwKHz} is not an uplink data rate of ${region}`);
}
