import type { CoapReply, CoapRequest } from "@iot/adapter-coap";
import { CONTENT_FORMAT } from "../codec/content-format.js";
import { bootstrapLookup } from "./bootstrap-plan.js";
import { decodeContent, encodeWrite } from "../codec/content.js";
import { parseObjectPath, pathDepth } from "../codec/object-path.js";
import { resourceType } from "../codec/objects.js";
import { typedFromJson, toContentValue, type TypedValue } from "../codec/typed-value.js";

/** What a finished bootstrap left in the test client: its account on the LwM2M server it was pointed at. */
export interface BootstrapResult {
  readonly serverUri: string;
  /** Security Mode (/0/x/2): 0 PSK, 2 Certificate, 3 NoSec. */
  readonly securityMode: number;
  /** PSK identity and key (/0/x/3, /0/x/5) as hex. */
  readonly identity: string;
  readonly key: string;
  /** Server Public Key (/0/x/4) as hex: the server's certificate in certificate mode. */
  readonly serverPublicKey: string;
  readonly shortServerId: number;
  /** Server instance (/1/x): lifetime and binding. */
  readonly lifetime: number;
  readonly binding: string;
}

/**
 * The client side of a bootstrap for the test client (OMA-TS-LightweightM2M-V1_0 §5.2.7): Bootstrap-Delete of `/`,
 * `/0` or `/1` (sparing its bootstrap account, `/0/0` with Bootstrap-Server true), Bootstrap-Discover, Bootstrap-Write
 * of Security and Server instances (created as needed), Bootstrap-Read of the Server object (1.1), and
 * Bootstrap-Finish, which settles `finished`. `failOn`
 * answers the first request to a path with 5.00, as a client that breaks midway.
 */
export class SimulatorBootstrap {
  readonly failOn = new Set<string>();
  readonly finished: Promise<BootstrapResult>;
  private settle!: (result: BootstrapResult) => void;
  private fail!: (err: Error) => void;

  constructor(private readonly resources: Map<string, TypedValue>) {
    this.finished = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    this.finished.catch(() => {});
  }

  /** Ends the wait for Finish (the Bootstrap-Request failed). */
  abandon(reason: string): void {
    this.fail(new Error(reason));
  }

  /** Answers a bootstrap-time request; undefined when it is no bootstrap operation. */
  handle(request: CoapRequest): CoapReply | undefined {
    const path = "/" + request.path.join("/");
    if (this.failOn.delete(path)) return { code: "5.00" };
    if (request.method === "POST" && path === "/bs") return this.finish();
    if (request.method === "DELETE") return this.delete(request.path);
    if (request.method === "GET" && request.accept === CONTENT_FORMAT.linkFormat && path === "/0") {
      const links = this.instances(0).map((i) => `</0/${i}>`);
      return { code: "2.05", payload: ["</>;lwm2m=1.1", ...links].join(","), contentFormat: CONTENT_FORMAT.linkFormat };
    }
    if (request.method === "GET" && path === "/1") return this.read(request.accept ?? CONTENT_FORMAT.tlv);
    if (request.method === "PUT" && (path.startsWith("/0/") || path.startsWith("/1/")))
      return this.write(request, path);
    return undefined;
  }

  private instances(objectId: number): number[] {
    const ids = new Set<number>();
    for (const p of this.resources.keys()) {
      const [, o, i] = p.split("/");
      if (Number(o) === objectId) ids.add(Number(i));
    }
    return [...ids].sort((a, b) => a - b);
  }

  private isBootstrapAccount = (instance: number) => {
    const flag = this.resources.get(`/0/${instance}/1`);
    return flag?.type === "boolean" && flag.value;
  };

  private delete(segments: readonly string[]): CoapReply {
    const objects = segments.length === 0 ? [0, 1] : [Number(segments[0])];
    const instance = segments.length > 1 ? Number(segments[1]) : undefined;
    for (const p of [...this.resources.keys()]) {
      const [, o, i] = p.split("/").map(Number);
      if (!objects.includes(o!) || (instance !== undefined && i !== instance)) continue;
      if (o === 0 && this.isBootstrapAccount(i!)) continue;
      this.resources.delete(p);
    }
    return { code: "2.02" };
  }

  private write(request: CoapRequest, path: string): CoapReply {
    const parsed = parseObjectPath(path);
    if (!parsed.ok || pathDepth(parsed.value) < 2) return { code: "4.00" };
    const format = request.contentFormat ?? CONTENT_FORMAT.tlv;
    const entries = decodeContent(format, request.payload, path, { lookup: bootstrapLookup });
    if (!entries.ok) return { code: "4.00", payload: entries.reason };
    for (const entry of entries.value) {
      const p = parseObjectPath(entry.path);
      const typed = p.ok ? typedFromJson(entry.value, resourceType(p.value, bootstrapLookup)) : undefined;
      if (!typed?.ok) return { code: "4.00" };
      this.resources.set(entry.path, typed.value);
    }
    return { code: "2.04" };
  }

  /** Bootstrap-Read of the Server object: its instances in the asked format. */
  private read(format: number): CoapReply {
    const values = [...this.resources].filter(([p]) => p.startsWith("/1/")).map(([path, value]) => ({ path, value }));
    const payload = encodeWrite(format, "/1", values);
    if (!payload.ok) return { code: "4.06" };
    return { code: "2.05", payload: payload.value, contentFormat: format };
  }

  private finish(): CoapReply {
    const security = this.instances(0).find((i) => !this.isBootstrapAccount(i));
    const server = this.instances(1)[0];
    if (security === undefined || server === undefined) return { code: "4.06" };
    const value = (p: string) => {
      const v = this.resources.get(p);
      return v === undefined ? "" : toContentValue(v);
    };
    this.settle({
      serverUri: String(value(`/0/${security}/0`)),
      securityMode: Number(value(`/0/${security}/2`)),
      identity: String(value(`/0/${security}/3`)),
      key: String(value(`/0/${security}/5`)),
      serverPublicKey: String(value(`/0/${security}/4`)),
      shortServerId: Number(value(`/0/${security}/10`)),
      lifetime: Number(value(`/1/${server}/1`)),
      binding: String(value(`/1/${server}/7`)),
    });
    return { code: "2.04" };
  }
}
