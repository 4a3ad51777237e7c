import { parseRegisteredObjects, type LinkFormatLimits, type ObjectLinks } from "./link-format.js";
import { ok, refuse, type Result } from "./result.js";

/**
 * The Client Registration Interface as requests (OMA-TS-LightweightM2M-V1_0 §5.3, Core V1_1 §6.2): Register is
 * `POST /rd?ep=…` with the client's objects in link format, Update `POST /rd/<location>?…`, De-register
 * `DELETE /rd/<location>`. Pure: the adapter hands in the method, Uri-Path, Uri-Query and payload and answers the
 * result (2.01 with Location-Path `rd`, `<id>`; 2.04; 2.02; 4.00 with the refusal's reason).
 */

/** LwM2M versions the server speaks; the `lwm2m` parameter of Register. */
export type Lwm2mVersion = "1.0" | "1.1" | "1.2";

/** The versions Register takes in `lwm2m`. */
export const LWM2M_VERSIONS: readonly Lwm2mVersion[] = ["1.0", "1.1", "1.2"];

/** Lifetime when Register has no `lt`, seconds (§5.3.1 Register parameters: 86400). */
export const DEFAULT_LIFETIME_S = 86_400;

/** Largest `lt` taken, seconds: the signed 32-bit range of the Server object's Lifetime resource (/1/x/1). */
export const MAX_LIFETIME_S = 2 ** 31 - 1;

/** Longest endpoint client name taken, bytes of UTF-8 (`urn:imei:…` is 24; room for longer URNs). */
export const MAX_ENDPOINT_BYTES = 255;

/** Binding modes of LwM2M 1.0 (§5.3.1.1): UDP, SMS, each optionally in queue mode (Q). */
export const BINDINGS_1_0 = ["U", "UQ", "S", "SQ", "US", "UQS"] as const;

/** Transports of LwM2M 1.1 (Core V1_1 §6.2.1.1): U UDP, T TCP, S SMS, N Non-IP; queue mode is the `Q` parameter. */
export const TRANSPORTS_1_1 = ["U", "T", "S", "N"] as const;

/** The path segment of the registration interface. */
export const RD = "rd";

/** A Register request after validation, with the defaults filled in. */
export interface RegisterRequest {
  readonly kind: "register";
  /** Endpoint client name (`ep`): the device's identity, for this service its IMEI. */
  readonly endpoint: string;
  /** Seconds until the registration expires without an Update. */
  readonly lifetime: number;
  readonly version: Lwm2mVersion;
  /** Binding as sent (`b`), e.g. `U`, `UQ`, `UQS` (1.0) or `U`, `UT` (1.1). */
  readonly binding: string;
  /** Queue mode: `Q` in a 1.0 binding, or the `Q` parameter of 1.1: the device sleeps between its updates. */
  readonly queueMode: boolean;
  /** MSISDN for SMS binding (`sms`), when given. */
  readonly sms?: string;
  readonly objects: ObjectLinks;
}

/** An Update request: only what the client sent has a value (everything is optional, §5.3.2). */
export interface UpdateRequest {
  readonly kind: "update";
  /** The registration's location id (`/rd/<location>`). */
  readonly location: string;
  readonly lifetime?: number;
  readonly binding?: string;
  /** Present when the update changes the binding (1.0) or sends `Q` (1.1). */
  readonly queueMode?: boolean;
  readonly sms?: string;
  /** The new object list when the payload carries one. */
  readonly objects?: ObjectLinks;
}

/** A De-register request. */
export interface DeregisterRequest {
  readonly kind: "deregister";
  readonly location: string;
}

/** Any request of the registration interface. */
export type RegistrationRequest = RegisterRequest | UpdateRequest | DeregisterRequest;

/** A CoAP request as the registration interface needs it. */
export interface RegistrationInput {
  /** `POST` or `DELETE` (others are refused). */
  readonly method: string;
  /** Uri-Path segments: `["rd"]` or `["rd", "<location>"]`. */
  readonly path: readonly string[];
  /**
   * Uri-Query options as sent (`["ep=x", "lt=60", "Q"]`); a map of name → value is taken too, but one built by
   * dropping options without `=` has lost the 1.1 `Q` flag, so queue mode of a 1.1 client needs the raw list.
   */
  readonly query: readonly string[] | ReadonlyMap<string, string>;
  readonly payload?: Uint8Array | string;
}

const LOCATION = /^[A-Za-z0-9_-]{1,64}$/;
const MSISDN = /^\+?[0-9]{1,15}$/;
const LIFETIME = /^[1-9][0-9]{0,9}$/;

/** The Location-Path of a registration (`/rd/<id>`); ids are 1..64 of `A-Z a-z 0-9 _ -`. */
export function formatLocation(id: string): Result<string> {
  return LOCATION.test(id) ? ok(`/${RD}/${id}`) : refuse(`location id "${id}" must be 1..64 of A-Z a-z 0-9 _ -`);
}

/**
 * Classifies and validates a registration request: `POST /rd` Register, `POST /rd/<id>` Update, `DELETE /rd/<id>`
 * De-register. `versionOf` gives an Update's registered version so its binding is checked against that version's
 * rules (without it, either version's bindings pass). Nothing throws: any mistake is a refusal with a reason.
 */
export function parseRegistrationRequest(
  input: RegistrationInput,
  versionOf?: (location: string) => Lwm2mVersion | undefined,
  limits?: LinkFormatLimits,
): Result<RegistrationRequest> {
  const [first, location, ...rest] = input.path;
  if (first !== RD || rest.length > 0) return refuse(`/${input.path.join("/")} is not a registration resource`);
  if (location !== undefined && !LOCATION.test(location)) return refuse(`location "${location}" is not a known form`);
  if (input.method === "POST") {
    if (location === undefined) return parseRegister(input.query, input.payload, limits);
    return parseUpdate(location, input.query, input.payload, versionOf?.(location), limits);
  }
  if (input.method === "DELETE" && location !== undefined) return ok({ kind: "deregister", location });
  return refuse(`${input.method} /${input.path.join("/")} is no registration operation`);
}

/**
 * Validates a Register (§5.3.1): `ep` required; `lt` 1..2^31-1 (default 86400); `lwm2m` 1.0, 1.1 or 1.2 (default
 * 1.0).
 */
export function parseRegister(
  query: RegistrationInput["query"],
  payload: Uint8Array | string | undefined,
  limits?: LinkFormatLimits,
): Result<RegisterRequest> {
  const params = queryParams(query);
  if (!params.ok) return params;
  const q = params.value;
  const endpoint = q.get("ep");
  if (endpoint === undefined || endpoint === "") return refuse("Register needs the endpoint client name ep");
  if (Buffer.byteLength(endpoint) > MAX_ENDPOINT_BYTES)
    return refuse(`endpoint name of ${Buffer.byteLength(endpoint)} bytes is longer than ${MAX_ENDPOINT_BYTES}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(endpoint)) return refuse("endpoint name has a control character");
  const versionText = q.get("lwm2m") ?? "1.0";
  const version = LWM2M_VERSIONS.find((v) => v === versionText);
  if (version === undefined) return refuse(`LwM2M version "${versionText}" is not supported: 1.0, 1.1 or 1.2`);
  const lifetime = q.has("lt") ? parseLifetime(q.get("lt")!) : ok(DEFAULT_LIFETIME_S);
  if (!lifetime.ok) return lifetime;
  const binding = parseBinding(q.get("b") ?? "U", version, q.has("Q"));
  if (!binding.ok) return binding;
  const sms = q.get("sms");
  if (sms !== undefined && !MSISDN.test(sms)) return refuse(`sms "${sms}" is not an MSISDN (up to 15 digits)`);
  const objects = parseRegisteredObjects(payload ?? "", limits);
  if (!objects.ok) return refuse(`Register payload: ${objects.reason}`);
  return ok({
    kind: "register",
    endpoint,
    lifetime: lifetime.value,
    version,
    ...binding.value,
    ...(sms === undefined ? {} : { sms }),
    objects: objects.value,
  });
}

/** Validates an Update (§5.3.2): `lt`, `b`, `sms`, `Q` and the object list are each optional. */
export function parseUpdate(
  location: string,
  query: RegistrationInput["query"],
  payload: Uint8Array | string | undefined,
  version?: Lwm2mVersion,
  limits?: LinkFormatLimits,
): Result<UpdateRequest> {
  const params = queryParams(query);
  if (!params.ok) return params;
  const q = params.value;
  const update: { -readonly [K in keyof UpdateRequest]: UpdateRequest[K] } = { kind: "update", location };
  if (q.has("lt")) {
    const lifetime = parseLifetime(q.get("lt")!);
    if (!lifetime.ok) return lifetime;
    update.lifetime = lifetime.value;
  }
  if (q.has("b")) {
    const binding = parseBinding(q.get("b")!, version, q.has("Q"));
    if (!binding.ok) return binding;
    update.binding = binding.value.binding;
    update.queueMode = binding.value.queueMode;
  } else if (q.has("Q")) update.queueMode = true;
  const sms = q.get("sms");
  if (sms !== undefined) {
    if (!MSISDN.test(sms)) return refuse(`sms "${sms}" is not an MSISDN (up to 15 digits)`);
    update.sms = sms;
  }
  const size = payload === undefined ? 0 : typeof payload === "string" ? payload.trim().length : payload.length;
  if (size > 0) {
    const objects = parseRegisteredObjects(payload!, limits);
    if (!objects.ok) return refuse(`Update payload: ${objects.reason}`);
    update.objects = objects.value;
  }
  return ok(update);
}

function parseLifetime(text: string): Result<number> {
  if (!LIFETIME.test(text) || Number(text) > MAX_LIFETIME_S)
    return refuse(`lifetime lt="${text}" must be a whole number of seconds from 1 to ${MAX_LIFETIME_S}`);
  return ok(Number(text));
}

/**
 * Checks a binding against the client's version: 1.0 takes exactly U, UQ, S, SQ, US or UQS; 1.1 takes each of U, T,
 * S, N at most once, as 1.2 does (queue mode is their `Q` parameter, though a `Q` in the binding, as 1.0 wrote
 * it, is tolerated).
 * With no version known, what either accepts passes.
 */
function parseBinding(
  binding: string,
  version: Lwm2mVersion | undefined,
  queueParam: boolean,
): Result<{ binding: string; queueMode: boolean }> {
  const valid10 = (BINDINGS_1_0 as readonly string[]).includes(binding);
  const letters = binding.replace("Q", "");
  const valid11 =
    letters.length > 0 &&
    binding.split("Q").length <= 2 &&
    [...letters].every((c, i) => (TRANSPORTS_1_1 as readonly string[]).includes(c) && letters.indexOf(c) === i);
  const valid = version === "1.0" ? valid10 : version === undefined ? valid10 || valid11 : valid11;
  if (!valid) {
    const allowed = version === "1.0" ? BINDINGS_1_0.join(", ") : "letters U, T, S, N (each once)";
    return refuse(`binding b="${binding}" is not valid for LwM2M ${version ?? "1.0/1.1"}: ${allowed}`);
  }
  return ok({ binding, queueMode: binding.includes("Q") || queueParam });
}

/** Reads Uri-Query options into a map; a repeated parameter is refused (which one would count is ambiguous). */
function queryParams(query: RegistrationInput["query"]): Result<Map<string, string>> {
  if (!Array.isArray(query)) return ok(new Map(query as ReadonlyMap<string, string>));
  const map = new Map<string, string>();
  for (const option of query as readonly string[]) {
    const eq = option.indexOf("=");
    const name = eq < 0 ? option : option.slice(0, eq);
    if (map.has(name)) return refuse(`query parameter ${name} is given twice`);
    map.set(name, eq < 0 ? "" : option.slice(eq + 1));
  }
  return ok(map);
}

/**
 * The IMEI in an endpoint client name: `urn:imei:<15 digits>` (the URN form the LwM2M specification recommends for
 * endpoint names) or the 15 digits alone; undefined for any other name. The adapter matches devices by it.
 */
export function endpointImei(endpoint: string): string | undefined {
  return /^(?:urn:imei:)?(\d{15})$/.exec(endpoint)?.[1];
}
