import type { ClientResponse, CoapReply, CoapRequest, MessageLayer, Peer } from "@iot/adapter-coap";
import { SimulatorBootstrap, type BootstrapResult } from "./bootstrap/simulator-bootstrap.js";
import { CONTENT_FORMAT } from "./codec/content-format.js";
import { decodeContent, encodeWrite, type WriteValue } from "./codec/content.js";
import { formatRegisteredObjects } from "./codec/link-format.js";
import { formatObjectPath, isWithin, parseObjectPath, pathDepth, type ObjectPath } from "./codec/object-path.js";
import { resourceType } from "./codec/objects.js";
import { typedFromJson, type TypedValue } from "./codec/typed-value.js";
import { encodeCompositeWrite } from "./composite/senml-paths.js";
import { SimulatorComposite } from "./composite/simulator-composite.js";
import { SimulatedFirmware } from "./firmware/firmware-client.js";

/** How the simulated client registers. */
export interface SimulatorOptions {
  /** Endpoint client name (`ep`): the device's IMEI. */
  readonly endpoint: string;
  /** Seconds (`lt`), default 300. */
  readonly lifetime?: number;
  /** `lwm2m`, default "1.0"; a "1.2" client also reads and writes LwM2M CBOR (11544). */
  readonly version?: "1.0" | "1.1" | "1.2";
  /** The formats it announces in its Register payload (`</>;ct="…"`, 1.1 and later); default none. */
  readonly contentFormats?: readonly number[];
  /** `b`, default "U" ("UQ" is 1.0's queue mode). */
  readonly binding?: string;
  /** 1.1 queue mode: sends the `Q` parameter. */
  readonly queueParameter?: boolean;
  /** Starting resources by path; default a Device object (/3/0) and a Temperature sensor (/3303/0). */
  readonly resources?: ReadonlyMap<string, TypedValue>;
  /** A Firmware Update object (5) and this firmware version in /3/0/3 (firmware/firmware-client.ts). */
  readonly firmwareVersion?: string;
  /** The Package URI schemes it downloads (Firmware Update Protocol Support /5/0/8); default coap (plain UDP). */
  readonly firmwareProtocols?: readonly ("coap" | "coaps")[];
  /** Downloads a Package URI in place of the simulator's own block-wise GET (a test that cuts the transfer). */
  readonly firmwareDownload?: (uri: string) => Promise<Buffer>;
}

/** A request the simulated client received, as tests check it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly accept: number | undefined;
  readonly contentFormat: number | undefined;
  readonly observe: number | undefined;
  readonly query: readonly string[];
  readonly payload: Buffer;
}

interface Observer {
  readonly path: string;
  readonly format: number;
  readonly request: CoapRequest;
  sequence: number;
}

const str = (value: string): TypedValue => ({ type: "string", value });
const int = (value: number): TypedValue => ({ type: "integer", value: BigInt(value) });

/** The resources a simulated client starts with: Device (/3/0), Server (/1/0) and Temperature (/3303/0). */
export function defaultResources(): Map<string, TypedValue> {
  return new Map<string, TypedValue>([
    ["/1/0/0", int(1)],
    ["/1/0/1", int(300)],
    ["/3/0/0", str("Open Mobile Alliance")],
    ["/3/0/1", str("Lightweight M2M Client")],
    ["/3/0/9", int(87)],
    ["/3/0/13", { type: "time", value: 1_700_000_000 }],
    ["/3/0/14", str("+01:00")],
    ["/3303/0/5700", { type: "float", value: 22.5 }],
    ["/3303/0/5701", str("Cel")],
  ]);
}

/**
 * A small LwM2M client on the CoAP message layer, for tests: it registers, updates and de-registers, and answers
 * the server's Read (TLV, SenML JSON and CBOR, OMA JSON, LwM2M CBOR, plain text), Discover, Write,
 * Write-Attributes, Execute, Create, Delete and Observe from an in-memory resource table; `set` changes a value and
 * notifies its observers. `answerWith` makes the next request on a path fail with a code; `refuse` lists formats it
 * answers 4.06; `ignore` lists paths whose requests it never answers (nor acknowledges), as a client that does not
 * implement them.
 */
export class Lwm2mClientSimulator {
  readonly resources: Map<string, TypedValue>;
  readonly requests: ReceivedRequest[] = [];
  readonly executed: { path: string; args: string }[] = [];
  readonly attributes = new Map<string, readonly string[]>();
  readonly answerWith = new Map<string, string>();
  readonly refuse = new Set<number>();
  readonly ignore = new Set<string>();
  /** Object 5, when `firmwareVersion` was given. */
  readonly firmware: SimulatedFirmware | undefined;
  /** The registration's location segments (`["rd", "<id>"]`) after a successful Register. */
  location: readonly string[] | undefined;
  /** Read-, Write- and Observe-Composite (1.1) over the same resources. */
  readonly composite: SimulatorComposite;
  /** The bootstrap under way (`bootstrap()`), which answers the bootstrap server's requests. */
  bootstrapping: SimulatorBootstrap | undefined;
  /** What the latest finished bootstrap wrote; Register then uses its lifetime and binding. */
  bootstrapped: BootstrapResult | undefined;
  private readonly observers = new Map<string, Observer>();
  private layer: MessageLayer | undefined;
  private server: Peer | undefined;

  constructor(readonly options: SimulatorOptions) {
    this.resources = new Map(options.resources ?? defaultResources());
    this.composite = new SimulatorComposite(this.resources, (path) => void this.notifyAbout(path));
    this.firmware =
      options.firmwareVersion === undefined
        ? undefined
        : new SimulatedFirmware(
            {
              resources: this.resources,
              set: (path, value) => this.set(path, value),
              requestTo: (peer, request) => this.requestTo(peer, request),
              ...(options.firmwareDownload && { download: options.firmwareDownload }),
              reboot: async () => {
                this.observers.clear();
                await this.register();
              },
            },
            options.firmwareVersion,
            options.firmwareProtocols,
          );
  }

  /**
   * Bootstraps (`POST /bs?ep=…`, with `pct` when given) and waits for Bootstrap-Finish; answers what the server
   * wrote. `prepare` sees the bootstrap state before the request goes (to make a step fail).
   */
  async bootstrap(pct?: number, prepare?: (b: SimulatorBootstrap) => void): Promise<BootstrapResult> {
    const session = new SimulatorBootstrap(this.resources);
    prepare?.(session);
    this.bootstrapping = session;
    const query = [`ep=${this.options.endpoint}`, ...(pct === undefined ? [] : [`pct=${pct}`])];
    const response = await this.send({ method: "POST", path: ["bs"], query });
    if (response.code !== "2.04") session.abandon(`Bootstrap-Request answered ${response.code}`);
    try {
      this.bootstrapped = await session.finished;
      return this.bootstrapped;
    } finally {
      if (this.bootstrapping === session) this.bootstrapping = undefined;
    }
  }

  /** The Send operation (`POST /dp`): the values at `paths` now, as SenML JSON (110) or CBOR (112). */
  sendValues(paths: readonly string[], format: number = CONTENT_FORMAT.senmlJson): Promise<ClientResponse> {
    const values = paths.flatMap((p) => {
      const value = this.resources.get(p);
      return value === undefined ? [] : [{ path: p, value }];
    });
    const payload = encodeCompositeWrite(format, values);
    if (!payload.ok) throw new Error(payload.reason);
    return this.send({ method: "POST", path: ["dp"], payload: payload.value, contentFormat: format });
  }

  /** The layer the simulator talks through and the server's address; before register. */
  attach(layer: MessageLayer, server: Peer): void {
    this.layer = layer;
    this.server = server;
  }

  /** Observations the server holds on this client now. */
  get observedPaths(): string[] {
    return [...this.observers.values()].map((o) => o.path).sort();
  }

  /** The object instances the table has, as a Register payload. */
  objectLinks(): string {
    const objects = new Map<number, Set<number>>();
    for (const path of this.resources.keys()) {
      const p = parseObjectPath(path);
      if (!p.ok) continue;
      objects.set(p.value.objectId, (objects.get(p.value.objectId) ?? new Set()).add(p.value.instanceId!));
    }
    const list = [...objects].map(([objectId, ids]) => ({ objectId, instances: [...ids].sort((a, b) => a - b) }));
    const contentFormats = this.options.contentFormats ?? [];
    const text = formatRegisteredObjects({ rootPath: "/", contentFormats, objects: list });
    return text.ok ? text.value : "";
  }

  /** Sends Register (`POST /rd?ep=…`); keeps the location on 2.01. */
  async register(): Promise<ClientResponse> {
    const { endpoint, version = "1.0", queueParameter } = this.options;
    const lifetime = this.bootstrapped?.lifetime ?? this.options.lifetime ?? 300;
    const binding = this.bootstrapped?.binding ?? this.options.binding ?? "U";
    const query = [`ep=${endpoint}`, `lt=${lifetime}`, `lwm2m=${version}`, `b=${binding}`];
    if (queueParameter) query.push("Q");
    const response = await this.send({ method: "POST", path: ["rd"], query, payload: this.objectLinks() });
    if (response.code === "2.01") this.location = response.locationPath;
    return response;
  }

  /** Sends Update (`POST /rd/<id>`) with the given query (`lt=60`) and, when `withObjects`, the object list. */
  update(query: string[] = [], withObjects = false): Promise<ClientResponse> {
    const payload = withObjects ? this.objectLinks() : undefined;
    return this.send({ method: "POST", path: [...(this.location ?? ["rd", "none"])], query, payload });
  }

  /** Sends De-register (`DELETE /rd/<id>`). */
  deregister(): Promise<ClientResponse> {
    return this.send({ method: "DELETE", path: [...(this.location ?? ["rd", "none"])] });
  }

  /** Changes a value and notifies every observation of a path it lies in. */
  async set(path: string, value: TypedValue): Promise<void> {
    this.resources.set(path, value);
    await this.notifyAbout(path);
    await this.composite.notifyAbout(path);
  }

  /** The server's requests to this client: give it as the device's CoAP handler. */
  readonly handler = async (request: CoapRequest): Promise<CoapReply> => {
    const path = "/" + request.path.join("/");
    this.requests.push({
      method: request.method,
      path,
      accept: request.accept,
      contentFormat: request.contentFormat,
      observe: request.observe,
      query: request.queryList,
      payload: request.payload,
    });
    if (this.ignore.has(path)) return new Promise<CoapReply>(() => {});
    const firmware = this.firmware?.handle(request, path);
    if (firmware) return firmware;
    const forced = this.answerWith.get(path);
    if (forced) {
      this.answerWith.delete(path);
      return { code: forced };
    }
    const special = this.bootstrapping?.handle(request) ?? this.composite.handle(request);
    if (special) return special;
    const parsed = parseObjectPath(path);
    if (!parsed.ok) return { code: "4.04" };
    const target = parsed.value;
    switch (request.method) {
      case "GET":
        return this.get(request, target);
      case "PUT":
        if (request.queryList.length > 0 && request.payload.length === 0) {
          this.attributes.set(path, request.queryList);
          return { code: "2.04" };
        }
        return this.write(request, target);
      case "POST":
        if (pathDepth(target) === 3) {
          if (!this.resources.has(path)) return { code: "4.04" };
          this.executed.push({ path, args: request.payload.toString("utf8") });
          return { code: "2.04" };
        }
        if (pathDepth(target) === 1) return this.create(request, target);
        return this.write(request, target);
      case "DELETE": {
        const gone = this.within(target);
        for (const [p] of gone) this.resources.delete(p);
        return { code: gone.length > 0 && pathDepth(target) === 2 ? "2.02" : "4.04" };
      }
      default:
        return { code: "4.05" };
    }
  };

  /** Sends a request to any peer through the simulator's transport (object 5 downloads its package so). */
  requestTo(peer: Peer, request: Parameters<MessageLayer["request"]>[1]): Promise<ClientResponse> {
    if (!this.layer) throw new Error("simulator not attached");
    return this.layer.request(peer, request);
  }

  private async send(request: Parameters<MessageLayer["request"]>[1]): Promise<ClientResponse> {
    if (!this.layer || !this.server) throw new Error("simulator not attached");
    return this.layer.request(this.server, request);
  }

  private within(target: ObjectPath): [string, TypedValue][] {
    return [...this.resources].filter(([p]) => {
      const parsed = parseObjectPath(p);
      return parsed.ok && isWithin(parsed.value, target);
    });
  }

  private encode(format: number, path: string, target: ObjectPath) {
    const values: WriteValue[] = this.within(target).map(([p, value]) => ({ path: p, value }));
    return encodeWrite(format, path, values);
  }

  private get(request: CoapRequest, target: ObjectPath): CoapReply {
    const path = formatObjectPath(target);
    const key = request.token.toString("hex");
    if (request.observe === 1) this.observers.delete(key);
    const found = this.within(target);
    if (found.length === 0) return { code: "4.04" };
    if (request.accept === CONTENT_FORMAT.linkFormat) {
      const links = [`<${path}>`, ...found.map(([p]) => `<${p}>`)];
      const attrs = this.attributes.get(path);
      if (attrs) links[0] += ";" + attrs.join(";");
      return { code: "2.05", payload: links.join(","), contentFormat: CONTENT_FORMAT.linkFormat };
    }
    const format = request.accept ?? (pathDepth(target) >= 3 ? CONTENT_FORMAT.text : CONTENT_FORMAT.tlv);
    if (this.refuse.has(format)) return { code: "4.06" };
    const payload = this.encode(format, path, target);
    if (!payload.ok) return { code: "4.06", payload: payload.reason };
    if (request.observe === 0) {
      this.observers.set(key, { path, format, request, sequence: 1 });
      return { code: "2.05", payload: payload.value, contentFormat: format, observe: 1 };
    }
    return { code: "2.05", payload: payload.value, contentFormat: format };
  }

  private write(request: CoapRequest, target: ObjectPath): CoapReply {
    const path = formatObjectPath(target);
    if (this.within(fromInstance(target)).length === 0) return { code: "4.04" };
    const format = request.contentFormat ?? CONTENT_FORMAT.text;
    const entries = decodeContent(format, request.payload, path);
    if (!entries.ok) return { code: "4.00", payload: entries.reason };
    for (const entry of entries.value) {
      const p = parseObjectPath(entry.path);
      if (!p.ok) return { code: "4.00" };
      const typed = typedFromJson(entry.value, resourceType(p.value));
      if (!typed.ok) return { code: "4.00", payload: typed.reason };
      this.resources.set(entry.path, typed.value);
    }
    for (const entry of entries.value) void this.notifyAbout(entry.path);
    return { code: "2.04" };
  }

  private create(request: CoapRequest, target: ObjectPath): CoapReply {
    const ids = this.within(target).map(([p]) => Number(p.split("/")[2]));
    const next = ids.length === 0 ? 0 : Math.max(...ids) + 1;
    const entries =
      request.payload.length === 0
        ? { ok: true as const, value: [] }
        : decodeContent(request.contentFormat ?? CONTENT_FORMAT.tlv, request.payload, formatObjectPath(target));
    if (!entries.ok) return { code: "4.00", payload: entries.reason };
    const instance = entries.value[0] ? Number(entries.value[0].path.split("/")[2]) : next;
    for (const entry of entries.value) {
      const typed = typedFromJson(entry.value, resourceType(parsePath(entry.path)));
      if (typed.ok) this.resources.set(entry.path, typed.value);
    }
    return { code: "2.01", locationPath: [String(target.objectId), String(instance)] };
  }

  private async notifyAbout(changed: string): Promise<void> {
    const p = parseObjectPath(changed);
    if (!p.ok) return;
    for (const observer of this.observers.values()) {
      const target = parseObjectPath(observer.path);
      if (!target.ok || !isWithin(p.value, target.value)) continue;
      const payload = this.encode(observer.format, observer.path, target.value);
      if (!payload.ok) continue;
      const answer = await observer.request.notify(++observer.sequence, "2.05", payload.value, observer.format);
      if (answer !== "ack") this.observers.delete(observer.request.token.toString("hex"));
    }
  }
}

function parsePath(text: string): ObjectPath {
  const p = parseObjectPath(text);
  return p.ok ? p.value : { objectId: 0 };
}

/** The object instance a path lies in (writes need it to exist). */
function fromInstance(target: ObjectPath): ObjectPath {
  return { objectId: target.objectId, instanceId: target.instanceId ?? 0 };
}
