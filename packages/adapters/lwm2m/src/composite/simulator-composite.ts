import type { CoapReply, CoapRequest } from "@iot/adapter-coap";
import type { WriteValue } from "../codec/content.js";
import { isWithin, parseObjectPath } from "../codec/object-path.js";
import { resourceType } from "../codec/objects.js";
import { typedFromJson, type TypedValue } from "../codec/typed-value.js";
import {
  decodeCompositeContent,
  decodeCompositePaths,
  encodeCompositeWrite,
  isCompositeFormat,
} from "./senml-paths.js";

interface CompositeObserver {
  readonly paths: readonly string[];
  readonly format: number;
  readonly request: CoapRequest;
  sequence: number;
}

/**
 * The composite operations of the test client (Core V1_1 §6.3.2, §6.3.4, §6.5.3) over its resource table:
 * Read-Composite and Observe-Composite (FETCH with SenML names or LwM2M CBOR paths), Write-Composite (iPATCH with
 * SenML records or LwM2M CBOR values), answered in the format asked for.
 */
export class SimulatorComposite {
  private readonly observers = new Map<string, CompositeObserver>();

  constructor(
    private readonly resources: Map<string, TypedValue>,
    /** Called after a write changed a value, so single-path observers hear of it. */
    private readonly changed: (path: string) => void,
  ) {}

  /** Composite observations held now, as their sorted path lists. */
  get observed(): string[][] {
    return [...this.observers.values()].map((o) => [...o.paths]);
  }

  /** Answers a FETCH or iPATCH; undefined for any other method. */
  handle(request: CoapRequest): CoapReply | undefined {
    if (request.method === "FETCH") return this.fetch(request);
    if (request.method === "iPATCH") return this.patch(request);
    return undefined;
  }

  /** Notifies every composite observation a changed path lies in. */
  async notifyAbout(changed: string): Promise<void> {
    const p = parseObjectPath(changed);
    if (!p.ok) return;
    for (const [key, observer] of this.observers) {
      if (!observer.paths.some((o) => within(changed, o))) continue;
      const payload = this.encode(observer.format, observer.paths);
      if (!payload) continue;
      const answer = await observer.request.notify(++observer.sequence, "2.05", payload, observer.format);
      if (answer !== "ack") this.observers.delete(key);
    }
  }

  private encode(format: number, paths: readonly string[]): Uint8Array | undefined {
    const values: WriteValue[] = [...this.resources]
      .filter(([p]) => paths.some((o) => within(p, o)))
      .map(([path, value]) => ({ path, value }));
    const payload = encodeCompositeWrite(format, values);
    return payload.ok ? payload.value : undefined;
  }

  private fetch(request: CoapRequest): CoapReply {
    const key = request.token.toString("hex");
    if (request.observe === 1) this.observers.delete(key);
    const paths = decodeCompositePaths(request.contentFormat, request.payload);
    if (!paths.ok) return { code: "4.00", payload: paths.reason };
    const format = request.accept ?? request.contentFormat!;
    if (!isCompositeFormat(format)) return { code: "4.06" };
    const payload = this.encode(format, paths.value);
    if (!payload) return { code: "4.06" };
    if (request.observe === 0) {
      this.observers.set(key, { paths: paths.value, format, request, sequence: 1 });
      return { code: "2.05", payload, contentFormat: format, observe: 1 };
    }
    return { code: "2.05", payload, contentFormat: format };
  }

  private patch(request: CoapRequest): CoapReply {
    const entries = decodeCompositeContent(request.contentFormat ?? -1, request.payload);
    if (!entries.ok) return { code: "4.00", payload: entries.reason };
    const typed: [string, TypedValue][] = [];
    for (const entry of entries.value) {
      const p = parseObjectPath(entry.path);
      if (!p.ok) return { code: "4.00" };
      const value = typedFromJson(entry.value, resourceType(p.value));
      if (!value.ok) return { code: "4.00", payload: value.reason };
      typed.push([entry.path, value.value]);
    }
    // All or nothing (§6.3.4): every value is checked before any is written.
    for (const [path, value] of typed) this.resources.set(path, value);
    for (const [path] of typed) {
      this.changed(path);
      void this.notifyAbout(path);
    }
    return { code: "2.04" };
  }
}

function within(inner: string, outer: string): boolean {
  const i = parseObjectPath(inner);
  const o = parseObjectPath(outer);
  return i.ok && o.ok && isWithin(i.value, o.value);
}
