import { randomBytes } from "node:crypto";
import { CODES, SecurePeers, type CoapReply, type CoapRequest, type MessageLayer } from "@iot/adapter-coap";
import {
  DeviceLeases,
  Lease,
  retryAfterSeconds,
  type AuthFailureCode,
  type DeviceCredentials,
} from "@iot/adapter-core";
import { BS, createBootstrapServer } from "./bootstrap/bootstrap-server.js";
import { ClientRegistration } from "./client-registration.js";
import {
  RD,
  endpointImei,
  parseRegistrationRequest,
  type RegisterRequest,
  type UpdateRequest,
} from "./codec/registration.js";
import { DOWNLOAD_PATH, FirmwareDownloads } from "./firmware/firmware-downloads.js";
import type { FirmwareHooks } from "./firmware/run-firmware.js";
import { autoSubscribe } from "./observe-path.js";
import { RegistrationFile } from "./restart/registration-file.js";
import { restoreRegistrations } from "./restart/restore.js";
import { saveRegistration } from "./restart/saved-registration.js";
import { preferredFormat } from "./preferred-format.js";
import { runCommand } from "./run-command.js";
import { DP, handleSend } from "./send.js";
import type { Lwm2mServer, Lwm2mServerOptions } from "./lwm2m-server-types.js";
import { serverContext, type ServerContext } from "./server-context.js";

/** Where a request came: the layer that answers it and, over DTLS, the session's PSK identity. */
interface Via {
  readonly layer: MessageLayer;
  /** The DTLS session's name: its PSK identity, or `cert:<fingerprint>` for a certificate session. */
  readonly identity?: string;
  /** A certificate session's credentials (the Register names the device by its endpoint). */
  readonly certificate?: Extract<DeviceCredentials, { kind: "certificate" }>;
}

/** The endpoint name as the registry knows it: the IMEI without `urn:imei:` (any other name as it is). */
const normaliseEndpoint = (endpoint: string) => endpointImei(endpoint) ?? endpoint;

/** An Update or De-register comes from the client that registered: the same transport and DTLS identity. */
const sameClient = (r: ClientRegistration, via: Via) => r.layer === via.layer && r.identity === via.identity;

/** Default grace after a lifetime, seconds. */
const DEFAULT_LIFETIME_GRACE_S = 15;

/**
 * How a registry refusal reads to the client: 5.03 while the registry cannot be asked (with Max-Age, the seconds
 * after which to register again, where that is soon: see `retryAfterSeconds`), else 4.03 Forbidden.
 */
function refusalReply(code: AuthFailureCode): CoapReply {
  if (code !== "UNAVAILABLE" && code !== "QUOTA_EXCEEDED") return { code: CODES.forbidden };
  const maxAge = retryAfterSeconds(code);
  return maxAge === undefined ? { code: CODES.unavailable } : { code: CODES.unavailable, maxAge };
}

/**
 * Builds the LwM2M server (OMA-TS-LightweightM2M-V1_0 §5.3, Core V1_1 §6.2): Register authenticates the endpoint
 * name (the device's IMEI) with the registry and opens the session; Update refreshes it; De-register and lifetime
 * expiry close it. Registry downlinks are commands (run-command.ts); a queue-mode client gets them only while awake.
 */
export function createLwm2mServer(options: Lwm2mServerOptions): Lwm2mServer {
  const log = options.logger.child({ component: "lwm2m-server" });
  const graceS = options.lifetimeGraceSeconds ?? DEFAULT_LIFETIME_GRACE_S;
  const keepAlive = (lifetime: number) => lifetime + Math.min(graceS, lifetime);
  const leases = new DeviceLeases({
    registry: options.registry,
    protocol: "lwm2m",
    logger: log,
    keepAliveSeconds: 86_400,
    policyDefault: options.policyDefault,
    inboxLimit: options.queueLimit ?? 100,
    idleReason: "lifetime expired",
    expiredMessage: "expired while the device slept",
  });
  options.registry.setHandlers(leases.handlers());
  const byId = new Map<string, ClientRegistration>();
  const byEndpoint = new Map<string, ClientRegistration>();
  let ctx: ServerContext | undefined;
  let plainLayer: MessageLayer | undefined;
  let secureLayer: MessageLayer | undefined;
  // The handshake's identity is the endpoint name; the device's session opens on Register, whose lease it watches.
  const secure = new SecurePeers(leases, options.registry, log, {
    protocol: "lwm2m",
    normalise: normaliseEndpoint,
    openOnHandshake: false,
    ...(options.ca && { ca: options.ca }),
  });

  const downloads = new FirmwareDownloads();
  const registeredListeners = new Set<(r: ClientRegistration) => void>();
  const firmware: FirmwareHooks = {
    downloads,
    packageUri: (r, token) =>
      `${options.firmwareBaseUri?.(r.identity !== undefined) ?? "coap://localhost"}/${DOWNLOAD_PATH}/${token}`,
    onRegistered(listener) {
      registeredListeners.add(listener);
      return () => registeredListeners.delete(listener);
    },
    stepTimeoutMs: options.firmwareStepTimeoutMs ?? 600_000,
  };

  const file =
    options.registrationsFile === undefined
      ? undefined
      : new RegistrationFile(
          options.registrationsFile,
          () => [...byId.values()].filter((r) => r.identity === undefined && !r.ended).map(saveRegistration),
          log,
        );

  const format = (r: ClientRegistration) => preferredFormat(r.version, r.objects.contentFormats);

  /** Lets commands through to the client: it is awake (always, outside queue mode). */
  const takeCommands = (r: ClientRegistration) => {
    if (r.stopCommands || r.ended || !ctx) return;
    const context = ctx;
    const take = (filter: string) =>
      r.lease.consume(
        filter,
        (downlink) => runCommand(context, r, downlink, firmware),
        () => {},
      );
    let consumer = take("#");
    if (typeof consumer !== "function") consumer = take(r.lease.session.device.defaultDownlinkTopic);
    if (typeof consumer === "function") r.stopCommands = consumer;
    else log.warn({ deviceId: r.deviceId, reason: consumer.message }, "commands cannot reach the device");
  };

  /** The client spoke (Register or Update): awake now; in queue mode, asleep again after the awake time. */
  const wake = (r: ClientRegistration) => {
    clearTimeout(r.awakeTimer);
    r.awakeTimer = undefined;
    if (r.sleeping) {
      r.sleeping = false;
      options.registry.sessionState(r.lease.session, false);
    }
    if (r.queueMode) {
      r.awakeTimer = setTimeout(() => sleep(r), options.queueAwakeSeconds * 1000);
      r.awakeTimer.unref();
    }
    takeCommands(r);
  };

  const sleep = (r: ClientRegistration) => {
    if (r.ended) return;
    r.stopCommands?.();
    r.stopCommands = undefined;
    r.sleeping = true;
    options.registry.sessionState(r.lease.session, true);
    log.debug({ deviceId: r.deviceId }, "queue-mode client asleep");
  };

  /** Forgets a registration once its session closed, for whatever reason. */
  const ended = (r: ClientRegistration, reason: string) => {
    if (r.ended) return;
    r.ended = true;
    clearTimeout(r.awakeTimer);
    r.stopCommands?.();
    r.stopCommands = undefined;
    r.forgetObservations();
    if (byId.get(r.id) === r) byId.delete(r.id);
    if (byEndpoint.get(r.endpoint) === r) byEndpoint.delete(r.endpoint);
    file?.changed();
    log.info({ deviceId: r.deviceId, endpoint: r.endpoint, reason }, "registration ended");
  };

  /** After the client has its answer: commands flow, autoSub observes. */
  const afterRegister = (r: ClientRegistration) =>
    setTimeout(() => {
      if (r.ended) return;
      wake(r);
      for (const listener of [...registeredListeners]) listener(r);
      if (r.lease.session.device.autoSub && ctx) void autoSubscribe(ctx, r, format(r));
    }, 0);

  /** Holds a new (or restored) registration: found by id and endpoint, ended with its lease, saved. */
  const adopt = (r: ClientRegistration) => {
    byId.set(r.id, r);
    byEndpoint.set(r.endpoint, r);
    r.lease.onClose((reason) => ended(r, reason));
    r.onChange = () => file?.changed();
    file?.changed();
  };

  const register = async (request: CoapRequest, reg: RegisterRequest, via: Via): Promise<CoapReply> => {
    const endpoint = normaliseEndpoint(reg.endpoint);
    if (via.identity !== undefined && !via.certificate && via.identity !== endpoint) {
      log.info({ endpoint: reg.endpoint, identity: via.identity }, "registration refused: not the DTLS identity");
      return { code: CODES.forbidden };
    }
    const previous = byEndpoint.get(reg.endpoint);
    // A NoSec Register does not take over a registration a DTLS session proved.
    if (previous?.identity !== undefined && via.identity === undefined) return { code: CODES.forbidden };
    previous?.lease.close("replaced by a new registration");
    // A certificate session: the endpoint's device must be the authType 2 device bound to the certificate.
    const credentials: DeviceCredentials =
      via.identity === undefined
        ? { kind: "lwm2m", endpoint }
        : via.certificate
          ? { ...via.certificate, clientId: endpoint }
          : { kind: "psk", identity: via.identity };
    const lease = await leases.acquire(credentials, request.peer.address, keepAlive(reg.lifetime));
    if (!(lease instanceof Lease)) {
      log.info({ endpoint: reg.endpoint, reason: lease.message }, "registration refused");
      return lease.kind === "auth" ? refusalReply(lease.code) : { code: CODES.forbidden };
    }
    // Two Registers of one endpoint at once share the session being opened: the later one replaces the earlier.
    const twin = byEndpoint.get(reg.endpoint);
    if (twin?.lease === lease) ended(twin, "replaced by a new registration");
    let id = randomBytes(6).toString("base64url");
    while (byId.has(id)) id = randomBytes(6).toString("base64url");
    const r = new ClientRegistration(id, reg.endpoint, lease, request.peer, reg, via.layer, via.identity);
    if (via.identity !== undefined) secure.watch(request.peer, lease);
    adopt(r);
    log.info(
      { deviceId: r.deviceId, endpoint: reg.endpoint, lifetime: reg.lifetime, binding: reg.binding, id },
      "client registered",
    );
    afterRegister(r);
    return { code: CODES.created, locationPath: [RD, id] };
  };

  const update = (request: CoapRequest, u: UpdateRequest, via: Via): CoapReply => {
    const r = byId.get(u.location);
    if (!r) return { code: CODES.notFound };
    if (!sameClient(r, via)) return { code: CODES.forbidden };
    r.peer = request.peer;
    if (via.identity !== undefined) secure.watch(request.peer, r.lease);
    if (u.binding !== undefined) r.binding = u.binding;
    if (u.queueMode !== undefined) r.queueMode = u.queueMode;
    if (u.objects !== undefined) r.objects = u.objects;
    if (u.lifetime !== undefined) r.lifetime = u.lifetime;
    r.lease.setKeepAlive(keepAlive(r.lifetime));
    r.refreshedAt = Date.now();
    file?.changed();
    setTimeout(() => {
      if (r.ended) return;
      wake(r);
      if (u.objects && r.lease.session.device.autoSub && ctx) void autoSubscribe(ctx, r, format(r));
    }, 0);
    return { code: CODES.changed };
  };

  const bootstrap = createBootstrapServer({
    registry: options.registry,
    log,
    defaults: options.bootstrapDefaults ?? (() => ({ nosecUri: "coap://localhost:5783", lifetime: 300, binding: "U" })),
  });

  /** A Send comes from a registered client's address (over DTLS: from its identity's session). */
  const send = (request: CoapRequest, via: Via): Promise<CoapReply> => {
    const at = (r: ClientRegistration) => r.peer.address === request.peer.address && r.peer.port === request.peer.port;
    let found: ClientRegistration | undefined;
    for (const r of byId.values()) if (at(r) || (via.identity !== undefined && r.identity === via.identity)) found = r;
    const other = found !== undefined && !sameClient(found, via);
    if (found && !other) wake(found);
    return handleSend(request, found, other, log);
  };

  const serve = async (request: CoapRequest, via: Via): Promise<CoapReply> => {
    if (request.path[0] === BS) return bootstrap.request(request, via);
    if (request.path[0] === DP) return send(request, via);
    if (request.path[0] === DOWNLOAD_PATH) return downloads.serve(request);
    if (request.path[0] !== RD) return { code: CODES.notFound };
    const parsed = parseRegistrationRequest(
      { method: request.method, path: request.path, query: request.queryList, payload: request.payload },
      (location) => byId.get(location)?.version,
    );
    if (!parsed.ok) {
      log.info({ peer: request.peer.address, reason: parsed.reason }, "registration request refused");
      return { code: CODES.badRequest, payload: parsed.reason };
    }
    const req = parsed.value;
    if (req.kind === "register") return register(request, req, via);
    if (req.kind === "update") return update(request, req, via);
    const r = byId.get(req.location);
    if (!r) return { code: CODES.notFound };
    if (!sameClient(r, via)) return { code: CODES.forbidden };
    r.lease.close("de-registered");
    return { code: CODES.deleted };
  };

  /** Unattached layers answer 5.03: the server was given no way to reach its clients yet. */
  const handler = (request: CoapRequest): Promise<CoapReply> =>
    plainLayer ? serve(request, { layer: plainLayer }) : Promise.resolve({ code: CODES.unavailable });
  const secureHandler = (request: CoapRequest): Promise<CoapReply> => {
    const credentials = secure.credentialsOf(request.peer);
    if (credentials === undefined) return Promise.resolve({ code: CODES.unauthorized });
    const via =
      credentials.kind === "certificate"
        ? { identity: `cert:${credentials.fingerprint}`, certificate: credentials }
        : { identity: secure.identityOf(request.peer) };
    return secureLayer ? serve(request, { layer: secureLayer, ...via }) : Promise.resolve({ code: CODES.unavailable });
  };

  return {
    handler,
    secureHandler,
    secure: {
      lookupPsk: (identity, from) => secure.lookupPsk(identity, from),
      checkCertificate: (chain, from) => secure.checkCertificate(chain, from),
      established: (peer, identity, end, client) => secure.established(peer, identity, end, client),
      failed: (peer, reason, alert) => secure.failed(peer, reason, alert),
      handle: (datagram, peer, send) => secureLayer?.handle(datagram, peer, send),
      closed: (peer) => secure.closed(peer),
      moved: (peer, from) => secure.moved(peer, from),
    },
    attach(layer, securedLayer) {
      plainLayer = layer;
      secureLayer = securedLayer;
      ctx = serverContext(log);
    },
    registrations: byId,
    get bootstrapping() {
      return bootstrap.running;
    },
    downloads,
    async restore() {
      if (!file || !plainLayer || !ctx) return 0;
      const layer = plainLayer;
      const context = ctx;
      const n = await restoreRegistrations(
        {
          leases,
          layer,
          ctx: context,
          log,
          normalise: normaliseEndpoint,
          graceSeconds: graceS,
          adopt(r) {
            // A client that registered again meanwhile keeps its new registration.
            if (byEndpoint.has(r.endpoint) || byId.has(r.id)) {
              r.lease.close("replaced by a new registration");
              return false;
            }
            adopt(r);
            wake(r);
            return true;
          },
        },
        file.read(),
      );
      log.info({ restored: n }, "saved registrations restored");
      return n;
    },
    close() {
      // Saved as they are now: ending them below (sessions reported closed) does not empty the file.
      file?.flush();
      file?.close();
      leases.closeAll("adapter stopping");
    },
  };
}
