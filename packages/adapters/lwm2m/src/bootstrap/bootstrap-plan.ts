import type { WriteValue } from "../codec/content.js";
import { resourceModel, type ResourceLookup } from "../codec/objects.js";
import type { ResourceType, TypedValue } from "../codec/typed-value.js";

/** A device's bootstrap settings as its record holds them; an empty or 0 member takes the deployment's default. */
export interface DeviceBootstrapSettings {
  /** `nosec`, `psk` or `certificate`; empty: NoSec when bootstrapping on the plain port, PSK on the DTLS port. */
  readonly securityMode?: string;
  /** The LwM2M server's URI (`coaps://iot.example.com:5784`); empty: this service's listener of the mode. */
  readonly serverUri?: string;
  /** Registration lifetime, seconds; 0: the deployment's default. */
  readonly lifetime?: number;
  /** Binding (`U`, `UQ`); empty: the deployment's default. */
  readonly binding?: string;
}

/** The deployment's defaults (IOT_LWM2M_BOOTSTRAP_*) and the URIs of this service's listeners. */
export interface BootstrapDefaults {
  /** `coap://host:5783`: the plain listener. */
  readonly nosecUri: string;
  /** `coaps://host:5784`: the DTLS listener (PSK and certificates); undefined when it is off. */
  readonly pskUri?: string;
  /** The service CA's certificate (DER): Server Public Key (/0/x/4) of a certificate-mode Security instance. */
  readonly serverCertificate?: Uint8Array;
  readonly lifetime: number;
  readonly binding: string;
}

/** What the server writes: the Security (/0) and Server (/1) instances, resolved. */
export interface BootstrapPlan {
  readonly securityMode: SecurityMode;
  readonly serverUri: string;
  readonly lifetime: number;
  readonly binding: string;
  /** The Short Server ID both instances carry (Security /0/x/10, Server /1/x/0). */
  readonly shortServerId: number;
}

/** The Short Server ID of this service's account on the client. */
const SHORT_SERVER_ID = 1;

/** Security Mode resource values (OMA-TS-LightweightM2M-V1_0 Appendix E.1, /0/x/2). */
const SECURITY_MODE = { psk: 0, certificate: 2, nosec: 3 } as const;
type SecurityMode = keyof typeof SECURITY_MODE;
const isMode = (v: string | undefined): v is SecurityMode => v !== undefined && v in SECURITY_MODE;

/**
 * The settings a bootstrap writes: the device's own where set, else the deployment's, the security mode following
 * the port the client bootstrapped on. Fails when PSK is asked for but no DTLS listener runs and no URI is given.
 */
export function bootstrapPlan(
  device: DeviceBootstrapSettings | undefined,
  defaults: BootstrapDefaults,
  onDtlsPort: boolean,
): { ok: true; plan: BootstrapPlan } | { ok: false; reason: string } {
  const mode = isMode(device?.securityMode) ? device.securityMode : undefined;
  const securityMode = mode ?? (onDtlsPort ? "psk" : "nosec");
  const serverUri = device?.serverUri || (securityMode === "nosec" ? defaults.nosecUri : defaults.pskUri);
  if (!serverUri) return { ok: false, reason: `${securityMode} bootstrap asked for, but the DTLS listener is off` };
  return {
    ok: true,
    plan: {
      securityMode,
      serverUri,
      lifetime: device?.lifetime || defaults.lifetime,
      binding: device?.binding || defaults.binding,
      shortServerId: SHORT_SERVER_ID,
    },
  };
}

const int = (value: number): TypedValue => ({ type: "integer", value: BigInt(value) });
const opaque = (value: Uint8Array): TypedValue => ({ type: "opaque", value });

/**
 * The resources of the Security instance `/0/<instance>` (Appendix E.1): URI, not a bootstrap server, the mode,
 * identity and key (PSK: the endpoint name's bytes and the device's token bytes; NoSec: empty), Short Server ID.
 * Certificate mode writes the service CA's certificate as Server Public Key and leaves out the client's certificate
 * and private key (/0/x/3, /0/x/5): the service never holds a device's private key, so the client keeps the pair
 * it was issued (`POST /certs`).
 */
export function securityValues(
  plan: BootstrapPlan,
  instance: number,
  psk: { identity: Uint8Array; key: Uint8Array } | undefined,
  serverCertificate?: Uint8Array,
): WriteValue[] {
  const at = (r: number) => `/0/${instance}/${r}`;
  const head: WriteValue[] = [
    { path: at(0), value: { type: "string", value: plan.serverUri } },
    { path: at(1), value: { type: "boolean", value: false } },
    { path: at(2), value: int(SECURITY_MODE[plan.securityMode]) },
  ];
  const ssid: WriteValue = { path: at(10), value: int(plan.shortServerId) };
  if (plan.securityMode === "certificate")
    return [...head, { path: at(4), value: opaque(serverCertificate ?? new Uint8Array()) }, ssid];
  return [
    ...head,
    { path: at(3), value: opaque(psk?.identity ?? new Uint8Array()) },
    { path: at(4), value: opaque(new Uint8Array()) },
    { path: at(5), value: opaque(psk?.key ?? new Uint8Array()) },
    ssid,
  ];
}

/** The resources of the Server instance `/1/<instance>` (Appendix E.2): Short Server ID, lifetime, storing, binding. */
export function serverValues(plan: BootstrapPlan, instance: number): WriteValue[] {
  const at = (r: number) => `/1/${instance}/${r}`;
  return [
    { path: at(0), value: int(plan.shortServerId) },
    { path: at(1), value: int(plan.lifetime) },
    { path: at(6), value: { type: "boolean", value: true } },
    { path: at(7), value: { type: "string", value: plan.binding } },
  ];
}

/**
 * The Security instance to write: the lowest id a Bootstrap-Discover of /0 did not list (the instances left after
 * the Delete are the bootstrap server's own account), else 1 (a 1.0 client's bootstrap account is commonly 0).
 */
export function freeSecurityInstance(listed: readonly number[] | undefined): number {
  if (!listed) return 1;
  let id = 0;
  while (listed.includes(id)) id++;
  return id;
}

/**
 * The Security object's resources (Appendix E.1), which the object table leaves out (no Device Management operation
 * reaches them): a client reads what a Bootstrap-Write gave it with this lookup.
 */
const SECURITY_TYPES: Record<number, ResourceType> = {
  0: "string",
  1: "boolean",
  2: "integer",
  3: "opaque",
  4: "opaque",
  5: "opaque",
  6: "integer",
  7: "opaque",
  8: "opaque",
  9: "string",
  10: "integer",
  11: "integer",
  12: "integer",
};

/** {@link resourceModel} with the Security object's resources. */
export const bootstrapLookup: ResourceLookup = (objectId, resourceId) => {
  const type = objectId === 0 ? SECURITY_TYPES[resourceId] : undefined;
  if (type === undefined) return resourceModel(objectId, resourceId);
  return { id: resourceId, name: `Security ${resourceId}`, type, operations: "RW", multiple: false };
};
