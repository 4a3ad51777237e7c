import type { ClientRegistration } from "../client-registration.js";
import type { ObjectLinks } from "../codec/link-format.js";
import type { Lwm2mVersion } from "../codec/registration.js";
import type { ReqId } from "../command.js";

/** An observation as kept across restarts: what to observe again and whose notifications they are. */
interface SavedObservation {
  readonly path: string;
  readonly reqID: ReqId;
  /** The Content-Format asked for. */
  readonly format: number;
}

/** A registration as kept across restarts of the adapter (NoSec ones: a DTLS session does not outlive the process). */
export interface SavedRegistration {
  readonly id: string;
  readonly endpoint: string;
  readonly peer: { readonly address: string; readonly port: number };
  readonly version: Lwm2mVersion;
  readonly binding: string;
  readonly queueMode: boolean;
  readonly lifetime: number;
  readonly objects: ObjectLinks;
  /** Epoch ms after which the registration has expired (its latest Register or Update plus the lifetime). */
  readonly expiresAt: number;
  readonly observations: readonly SavedObservation[];
}

/** What is kept of a live registration. */
export function saveRegistration(r: ClientRegistration): SavedRegistration {
  return {
    id: r.id,
    endpoint: r.endpoint,
    peer: { address: r.peer.address, port: r.peer.port },
    version: r.version,
    binding: r.binding,
    queueMode: r.queueMode,
    lifetime: r.lifetime,
    objects: r.objects,
    expiresAt: r.refreshedAt + r.lifetime * 1000,
    // Observe-Composite (keyed "composite:…") is not made again after a restart: the server asks it anew.
    observations: [...r.observations]
      .filter(([path]) => path.startsWith("/"))
      .map(([path, held]) => ({ path, reqID: held.reqID, format: held.format })),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The registrations of a saved file's text that are well formed (anything else in it is left out). */
export function parseSaved(text: string): SavedRegistration[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(json)) return [];
  return json.filter(
    (r): r is SavedRegistration =>
      isObject(r) &&
      typeof r.id === "string" &&
      typeof r.endpoint === "string" &&
      isObject(r.peer) &&
      typeof r.peer.address === "string" &&
      typeof r.peer.port === "number" &&
      (r.version === "1.0" || r.version === "1.1" || r.version === "1.2") &&
      typeof r.binding === "string" &&
      typeof r.queueMode === "boolean" &&
      typeof r.lifetime === "number" &&
      isObject(r.objects) &&
      Array.isArray(r.objects.objects) &&
      typeof r.expiresAt === "number" &&
      Array.isArray(r.observations) &&
      r.observations.every(
        (o: unknown) =>
          isObject(o) &&
          typeof o.path === "string" &&
          (typeof o.reqID === "string" || typeof o.reqID === "number") &&
          typeof o.format === "number",
      ),
  );
}
