import type { ClientRequest, ClientResponse, CoapReply, CoapRequest, Peer } from "@iot/adapter-coap";
import type { TypedValue } from "../codec/typed-value.js";
import { FW_STATE } from "./firmware-state.js";

/** What a simulated device needs of its simulator: its resource table, requests out, and a reboot. */
export interface FirmwareDevice {
  readonly resources: Map<string, TypedValue>;
  /** Changes a value and notifies its observers. */
  set(path: string, value: TypedValue): Promise<void>;
  /** Sends a request to any peer through the device's transport (a package download). */
  requestTo(peer: Peer, request: ClientRequest): Promise<ClientResponse>;
  /** Downloads a Package URI itself (a test's), instead of one block-wise GET through `requestTo`. */
  readonly download?: (uri: string) => Promise<Buffer>;
  /** Starts again after an update: its observations are gone and it registers anew. */
  reboot(): Promise<void>;
}

const int = (value: number): TypedValue => ({ type: "integer", value: BigInt(value) });
const str = (value: string): TypedValue => ({ type: "string", value });

/** The first line of a package the simulated device takes: `SIMFW <version>`, then the image. */
const SIMULATED_PACKAGE_HEADER = "SIMFW ";

/** A package the simulated device accepts: the header line naming `version`, then `size` bytes in all. */
export function simulatedPackage(version: string, size: number): Buffer {
  const head = Buffer.from(`${SIMULATED_PACKAGE_HEADER}${version}\n`);
  const body = Buffer.alloc(Math.max(0, size - head.length));
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + 7) & 0xff;
  return Buffer.concat([head, body]);
}

/** The version a package's header names; undefined when it is not a package for the simulated device. */
function versionOf(bytes: Buffer): string | undefined {
  const end = bytes.indexOf(0x0a);
  const head = bytes.subarray(0, end < 0 ? 0 : end).toString("utf8");
  return head.startsWith(SIMULATED_PACKAGE_HEADER) ? head.slice(SIMULATED_PACKAGE_HEADER.length) : undefined;
}

/**
 * The Firmware Update object (5) of a simulated client, as OMA-TS-LightweightM2M-V1_0 Appendix E.6 describes it:
 * a Write of Package /5/0/0 (push) or Package URI /5/0/1 (pull: it downloads the URI, CoAP block-wise) moves State
 * /5/0/3 from Idle to Downloading, and to Downloaded once the package verifies (Update Result /5/0/5 5 when it does
 * not, 4 when the download broke, 7 or 9 for a URI it cannot use, State back to Idle); an empty Package URI resets
 * to Idle; Execute Update /5/0/2 in Downloaded moves to Updating, then the device runs the new version (/3/0/3),
 * reports Update Result 1 in Idle and reboots: it registers again.
 */
export class SimulatedFirmware {
  /** Package bytes received, by push or pull, for tests. */
  received = 0;
  /** When set, Update fails with this Update Result (8: firmware update failed) instead of applying. */
  failUpdateWith: number | undefined;
  private pending: string | undefined;

  constructor(
    private readonly device: FirmwareDevice,
    version: string,
    /** The Package URI schemes it downloads over its transport (coaps: a client on a DTLS session). */
    private readonly protocols: readonly ("coap" | "coaps")[] = ["coap"],
  ) {
    const r = device.resources;
    r.set("/3/0/3", str(version));
    r.set("/5/0/1", str(""));
    r.set("/5/0/2", str(""));
    r.set("/5/0/3", int(FW_STATE.idle));
    r.set("/5/0/5", int(0));
    r.set("/5/0/9", int(2)); // delivery methods: both pull and push
    // Firmware Update Protocol Support: 0 CoAP, 1 CoAPS.
    this.protocols.forEach((p, i) => r.set(`/5/0/8/${i}`, int(p === "coaps" ? 1 : 0)));
  }

  /** The State now. */
  get state(): number {
    return Number((this.device.resources.get("/5/0/3") as { value: bigint }).value);
  }

  /** Answers the requests object 5 handles itself; undefined leaves the request to the simulator. */
  handle(request: CoapRequest, path: string): CoapReply | undefined {
    if (path === "/5/0/0" && (request.method === "PUT" || request.method === "POST")) {
      if (this.state !== FW_STATE.idle) return { code: "4.00", payload: "not Idle" };
      const bytes = Buffer.from(request.payload);
      setImmediate(() => void this.downloaded(bytes));
      return { code: "2.04" };
    }
    if (path === "/5/0/1" && request.method === "PUT") {
      const uri = request.payload.toString("utf8");
      this.device.resources.set("/5/0/1", str(uri));
      setImmediate(() => void (uri === "" ? this.reset() : this.download(uri)));
      return { code: "2.04" };
    }
    if (path === "/5/0/2" && request.method === "POST") {
      if (this.state !== FW_STATE.downloaded) return { code: "4.05" };
      setImmediate(() => void this.update());
      return { code: "2.04" };
    }
    return undefined;
  }

  private async reset(): Promise<void> {
    this.pending = undefined;
    await this.device.set("/5/0/5", int(0));
    await this.device.set("/5/0/3", int(FW_STATE.idle));
  }

  private async fail(result: number): Promise<void> {
    this.pending = undefined;
    await this.device.set("/5/0/5", int(result));
    await this.device.set("/5/0/3", int(FW_STATE.idle));
  }

  private async download(uri: string): Promise<void> {
    await this.device.set("/5/0/5", int(0));
    await this.device.set("/5/0/3", int(FW_STATE.downloading));
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return this.fail(7);
    }
    const scheme = url.protocol.slice(0, -1);
    if (!(this.protocols as readonly string[]).includes(scheme)) return this.fail(9);
    if (this.device.download) {
      const bytes = await this.device.download(uri).catch(() => undefined);
      return bytes ? this.downloaded(bytes) : this.fail(4);
    }
    const peer = { address: url.hostname, port: Number(url.port || (scheme === "coaps" ? 5684 : 5683)) };
    let response: ClientResponse;
    try {
      response = await this.device.requestTo(peer, { method: "GET", path: url.pathname });
    } catch {
      return this.fail(4);
    }
    if (response.code !== "2.05") return this.fail(response.code === "4.04" ? 7 : 4);
    await this.downloaded(response.payload);
  }

  private async downloaded(bytes: Buffer): Promise<void> {
    this.received += bytes.length;
    if (this.state !== FW_STATE.downloading) await this.device.set("/5/0/3", int(FW_STATE.downloading));
    const version = versionOf(bytes);
    if (version === undefined) return this.fail(5);
    this.pending = version;
    await this.device.set("/5/0/3", int(FW_STATE.downloaded));
  }

  private async update(): Promise<void> {
    await this.device.set("/5/0/3", int(FW_STATE.updating));
    if (this.failUpdateWith !== undefined || this.pending === undefined) return this.fail(this.failUpdateWith ?? 8);
    this.device.resources.set("/3/0/3", str(this.pending));
    this.pending = undefined;
    await this.device.set("/5/0/5", int(1));
    await this.device.set("/5/0/3", int(FW_STATE.idle));
    await this.device.reboot();
  }
}
