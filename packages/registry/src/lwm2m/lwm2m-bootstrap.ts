/** Security modes a bootstrap can write (LwM2M Security object /0/x/2: PSK 0, Certificate 2, NoSec 3). */
export const LWM2M_SECURITY_MODES = ["nosec", "psk", "certificate"] as const;

/**
 * An LwM2M device's bootstrap settings as its record keeps them (the `lwm2m_bootstrap` column, JSON text). A member
 * left out takes the deployment's default (IOT_LWM2M_BOOTSTRAP_*, docs/devices/lwm2m.md).
 */
export interface Lwm2mBootstrapSettings {
  securityMode?: (typeof LWM2M_SECURITY_MODES)[number] | undefined;
  /** `coap://…` for nosec, `coaps://…` for psk and certificate. */
  serverUri?: string | undefined;
  /** Registration lifetime, seconds. */
  lifetime?: number | undefined;
  /** `U`, `UQ`, `T`, … (LwM2M 1.0 and 1.1 binding modes). */
  binding?: string | undefined;
}

/** The settings of a record's column text; undefined when it holds none (or is not an object). */
export function parseLwm2mBootstrap(text: string | null): Lwm2mBootstrapSettings | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The column text of settings: null when no member is set. */
export function lwm2mBootstrapText(s: Lwm2mBootstrapSettings | null | undefined): string | null {
  if (!s) return null;
  const kept = Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  return Object.keys(kept).length > 0 ? JSON.stringify(kept) : null;
}

/**
 * The rules that need the rest of the record (the API checked each member's shape): only LwM2M end devices have
 * bootstrap settings; PSK needs token credentials (the key is the token), certificate mode certificate credentials.
 * Errors go under `lwm2mBootstrap.<member>`.
 */
export function lwm2mBootstrapErrors(
  d: { protocol: number; deviceType: number; authType: number | null; lwm2mBootstrap: Lwm2mBootstrapSettings | null },
  errors: Record<string, string>,
): void {
  const s = d.lwm2mBootstrap;
  if (!s || lwm2mBootstrapText(s) === null) return;
  if (d.protocol !== 3 || d.deviceType === 2) {
    errors.lwm2mBootstrap = "only for LwM2M devices";
    return;
  }
  const authType = d.authType ?? 1;
  if (s.securityMode === "psk" && authType !== 1)
    errors["lwm2mBootstrap.securityMode"] = "psk needs token credentials (authType 1)";
  if (s.securityMode === "certificate" && authType !== 2)
    errors["lwm2mBootstrap.securityMode"] = "certificate needs certificate credentials (authType 2)";
  const scheme = s.serverUri?.split(":")[0];
  if (scheme && s.securityMode === "nosec" && scheme !== "coap")
    errors["lwm2mBootstrap.serverUri"] = "must be a coap:// URI for nosec";
  if (scheme && (s.securityMode === "psk" || s.securityMode === "certificate") && scheme !== "coaps")
    errors["lwm2mBootstrap.serverUri"] = `must be a coaps:// URI for ${s.securityMode}`;
}
