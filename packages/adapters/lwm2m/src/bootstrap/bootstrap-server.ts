import {
  CODES,
  type ClientRequest,
  type CoapReply,
  type CoapRequest,
  type MessageLayer,
  type Peer,
} from "@iot/adapter-coap";
import type { DeviceCredentials, RegistryClient } from "@iot/adapter-core";
import type { Logger } from "pino";
import { CONTENT_FORMAT } from "../codec/content-format.js";
import { decodeContent, encodeWrite } from "../codec/content.js";
import { parseLinkFormat } from "../codec/link-format.js";
import { endpointImei } from "../codec/registration.js";
import {
  bootstrapLookup,
  bootstrapPlan,
  freeSecurityInstance,
  securityValues,
  serverValues,
  type BootstrapDefaults,
  type BootstrapPlan,
} from "./bootstrap-plan.js";

/** The Uri-Path of Bootstrap-Request and Bootstrap-Finish. */
export const BS = "bs";

/** Where a Bootstrap-Request came: the layer that answers it and, over DTLS, the session's PSK identity. */
interface BootstrapVia {
  readonly layer: MessageLayer;
  readonly identity?: string;
}

/** What the bootstrap server needs. */
export interface BootstrapServerOptions {
  readonly registry: RegistryClient;
  readonly log: Logger;
  /** The deployment's defaults and this service's listener URIs (known once the listeners are bound). */
  readonly defaults: () => BootstrapDefaults;
}

/** The Bootstrap Interface's server side (OMA-TS-LightweightM2M-V1_0 §5.2, Core V1_1 §6.1). */
export interface BootstrapServer {
  /** Answers `POST /bs?ep=…[&pct=…]`; on 2.04 the Delete, Writes and Finish follow on their own. */
  request(request: CoapRequest, via: BootstrapVia): Promise<CoapReply>;
  /** Bootstraps under way now (a test and the shutdown look). */
  readonly running: number;
}

/** Formats a Bootstrap-Write may use when the client names one with `pct` (else TLV, which 1.0 mandates). */
const WRITE_FORMATS: readonly number[] = [
  CONTENT_FORMAT.tlv,
  CONTENT_FORMAT.senmlJson,
  CONTENT_FORMAT.senmlCbor,
  CONTENT_FORMAT.lwm2mJson,
  CONTENT_FORMAT.lwm2mCbor,
];

/** Why a step of a bootstrap failed: the client's code, or the layer's reason (timeout). */
class StepFailed extends Error {}

/** A Server instance (/1/x) a Bootstrap-Read found on the client: the LwM2M server account it held. */
interface ServerAccount {
  readonly instance: number;
  readonly shortServerId?: number;
  readonly lifetime?: number;
  readonly binding?: string;
}

/** The Server accounts of a Bootstrap-Read answer of /1 (entries `/1/<i>/<r>`). */
function serverAccounts(entries: readonly { path: string; value: unknown }[]): ServerAccount[] {
  const byInstance = new Map<
    number,
    { instance: number; shortServerId?: number; lifetime?: number; binding?: string }
  >();
  for (const e of entries) {
    const [, , i, r] = e.path.split("/").map(Number);
    if (i === undefined || r === undefined || !Number.isInteger(i)) continue;
    const account = byInstance.get(i) ?? { instance: i };
    if (r === 0 && typeof e.value === "number") account.shortServerId = e.value;
    if (r === 1 && typeof e.value === "number") account.lifetime = e.value;
    if (r === 7 && typeof e.value === "string") account.binding = e.value;
    byInstance.set(i, account);
  }
  return [...byInstance.values()].sort((a, b) => a.instance - b.instance);
}

/**
 * Builds the bootstrap server. A Bootstrap-Request is checked with the registry (an unknown or blocked endpoint gets
 * 4.03 and the registry writes its connect log; over DTLS the `ep` must be the handshake's identity), answered 2.04,
 * and then the server, acting as a client on the same layer: Bootstrap-Delete `/`, Bootstrap-Discover `/0` (1.1,
 * when the request carried `pct`) to keep clear of the bootstrap account, Bootstrap-Write of the Security and
 * Server instances that point at this service's LwM2M server, Bootstrap-Finish. Nothing is stored on the server
 * side: a bootstrap that fails midway is only logged, and the client's next Bootstrap-Request starts afresh (a new
 * request of an endpoint abandons the one under way).
 */
export function createBootstrapServer(options: BootstrapServerOptions): BootstrapServer {
  const { registry, log } = options;
  /** The latest bootstrap of each endpoint: a step of an older one stops the sequence. */
  const current = new Map<string, object>();

  const run = async (
    endpoint: string,
    peer: Peer,
    layer: MessageLayer,
    plan: BootstrapPlan,
    psk: { identity: Uint8Array; key: Uint8Array } | undefined,
    format: number,
    discover: boolean,
    ticket: object,
  ) => {
    const step = async (what: string, request: ClientRequest, expected: string[]) => {
      if (current.get(endpoint) !== ticket) throw new StepFailed(`${what}: a newer Bootstrap-Request took over`);
      const response = await layer.request(peer, request);
      if (!expected.includes(response.code)) throw new StepFailed(`${what} answered ${response.code}`);
      return response;
    };
    // Bootstrap-Read (1.1) of the Server object before anything is deleted: the accounts the client held, logged,
    // and the instance of this service's account (its Short Server ID) is written again under the same id.
    let serverInstance = 0;
    if (discover) {
      const accounts = await bootstrapRead(peer, layer, format);
      if (accounts) {
        const ours = accounts.find((a) => a.shortServerId === plan.shortServerId);
        if (ours) serverInstance = ours.instance;
        log.info({ endpoint, accounts }, "bootstrap read the client's server accounts");
      }
    }
    await step("Bootstrap-Delete /", { method: "DELETE", path: [] }, ["2.02"]);
    let listed: number[] | undefined;
    if (discover) {
      const d = await layer.request(peer, { method: "GET", path: ["0"], accept: CONTENT_FORMAT.linkFormat });
      const links = d.code === "2.05" ? parseLinkFormat(d.payload) : undefined;
      if (links?.ok)
        listed = links.value
          .map((l) => l.uri.split("/"))
          .filter((s) => s.length === 3)
          .map((s) => Number(s[2]));
    }
    const security = freeSecurityInstance(listed);
    const write = async (path: string, values: ReturnType<typeof serverValues>) => {
      const payload = encodeWrite(format, path, values);
      if (!payload.ok) throw new StepFailed(`Bootstrap-Write ${path}: ${payload.reason}`);
      await step(
        `Bootstrap-Write ${path}`,
        { method: "PUT", path: path.slice(1).split("/"), payload: payload.value, contentFormat: format },
        ["2.04"],
      );
    };
    await write(`/0/${security}`, securityValues(plan, security, psk, options.defaults().serverCertificate));
    await write(`/1/${serverInstance}`, serverValues(plan, serverInstance));
    await step("Bootstrap-Finish", { method: "POST", path: [BS] }, ["2.04"]);
    log.info({ endpoint, serverUri: plan.serverUri, securityMode: plan.securityMode }, "client bootstrapped");
  };

  /**
   * Bootstrap-Read of /1 in the client's format (undefined when the client refuses it or its answer does not
   * decode: the read is optional, the bootstrap goes on).
   */
  const bootstrapRead = async (peer: Peer, layer: MessageLayer, format: number) => {
    const accept = format === CONTENT_FORMAT.lwm2mJson ? CONTENT_FORMAT.senmlJson : format;
    const r = await layer.request(peer, { method: "GET", path: ["1"], accept }).catch(() => undefined);
    if (r?.code !== "2.05") return undefined;
    const decoded = decodeContent(r.contentFormat ?? accept, r.payload, "/1", { lookup: bootstrapLookup });
    return decoded.ok ? serverAccounts(decoded.value) : undefined;
  };

  const request = async (request: CoapRequest, via: BootstrapVia): Promise<CoapReply> => {
    if (request.method !== "POST" || request.path.length !== 1) return { code: CODES.methodNotAllowed };
    const ep = request.queryList.find((q) => q.startsWith("ep="))?.slice(3);
    if (!ep) return { code: CODES.badRequest, payload: "Bootstrap-Request needs ep=<endpoint name>" };
    const pctText = request.queryList.find((q) => q.startsWith("pct="))?.slice(4);
    const pct = pctText === undefined ? undefined : Number(pctText);
    if (pctText !== undefined && !Number.isSafeInteger(pct))
      return { code: CODES.badRequest, payload: "pct must be a content format number" };
    const endpoint = endpointImei(ep) ?? ep;
    if (via.identity !== undefined && via.identity !== endpoint) {
      log.info({ endpoint: ep, identity: via.identity }, "bootstrap refused: not the DTLS identity");
      return { code: CODES.forbidden };
    }
    const onDtls = via.identity !== undefined;
    const ask = (credentials: DeviceCredentials) => registry.authenticate("lwm2m", credentials, request.peer.address);
    // Over NoSec the request asks as a bootstrap: PSK keys come with the answer when the settings write PSK.
    const auth = await ask(onDtls ? { kind: "psk", identity: endpoint } : { kind: "lwm2m", endpoint, bootstrap: true });
    if (!auth.ok) {
      log.info({ endpoint: ep, reason: auth.message }, "bootstrap refused");
      return { code: auth.code === "UNAVAILABLE" ? CODES.unavailable : CODES.forbidden };
    }
    const planned = bootstrapPlan(auth.session.lwm2mBootstrap, options.defaults(), onDtls);
    if (!planned.ok) {
      log.warn({ deviceId: auth.session.device.deviceId, reason: planned.reason }, "bootstrap refused");
      return { code: CODES.forbidden };
    }
    const plan = planned.plan;
    const key = auth.session.pskKeys?.[0];
    if (plan.securityMode === "psk" && !key) return { code: CODES.forbidden };
    const psk = plan.securityMode === "psk" && key ? { identity: Buffer.from(endpoint), key } : undefined;
    const format = pct !== undefined && WRITE_FORMATS.includes(pct) ? pct : CONTENT_FORMAT.tlv;
    const ticket = {};
    current.set(endpoint, ticket);
    const deviceId = auth.session.device.deviceId;
    log.info({ deviceId, endpoint: ep }, "bootstrap request");
    // After the 2.04 has gone: the client takes the server's requests once it has its answer.
    setTimeout(() => {
      run(endpoint, request.peer, via.layer, plan, psk, format, pct !== undefined, ticket)
        .catch((err: Error) => log.info({ deviceId, endpoint: ep, reason: err.message }, "bootstrap failed"))
        .finally(() => {
          if (current.get(endpoint) === ticket) current.delete(endpoint);
        });
    }, 0);
    return { code: CODES.changed };
  };

  return {
    request,
    get running() {
      return current.size;
    },
  };
}
