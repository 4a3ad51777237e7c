import type { AuthenticateResponse } from "@iot/proto";
import type { Lwm2mBootstrapSettings } from "./registry-client.js";

/**
 * An LwM2M device's bootstrap settings from AuthenticateResponse fields 19-22: `{lwm2mBootstrap}` when any is set
 * (empty or 0 members take the deployment's defaults), else nothing.
 */
export function lwm2mBootstrapOf(res: AuthenticateResponse): { lwm2mBootstrap?: Lwm2mBootstrapSettings } {
  if (!res.lwm2mSecurityMode && !res.lwm2mServerUri && !res.lwm2mLifetime && !res.lwm2mBinding) return {};
  return {
    lwm2mBootstrap: {
      securityMode: res.lwm2mSecurityMode,
      serverUri: res.lwm2mServerUri,
      lifetime: res.lwm2mLifetime,
      binding: res.lwm2mBinding,
    },
  };
}
