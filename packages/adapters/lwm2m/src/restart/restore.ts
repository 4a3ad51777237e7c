import type { MessageLayer } from "@iot/adapter-coap";
import { Lease, type DeviceLeases } from "@iot/adapter-core";
import type { Logger } from "pino";
import { ClientRegistration } from "../client-registration.js";
import { observePath } from "../observe-path.js";
import type { ServerContext } from "../server-context.js";
import type { SavedRegistration } from "./saved-registration.js";

/** What restoring needs of the server. */
export interface RestoreTarget {
  readonly leases: DeviceLeases;
  readonly layer: MessageLayer;
  readonly ctx: ServerContext;
  readonly log: Logger;
  /** The registry's name of an endpoint (the IMEI without `urn:imei:`). */
  normalise(endpoint: string): string;
  /** Seconds a registration outlives its lifetime. */
  readonly graceSeconds: number;
  /** Takes a restored registration in, as Register does (maps, lease end, commands); false when one replaced it. */
  adopt(registration: ClientRegistration): boolean;
}

/**
 * Takes back the registrations a previous process of the adapter saved and that have not expired: each opens its
 * device's session again (the registry checks the device as at Register) under the same location (`/rd/<id>`), so
 * the client's next Update finds it, and its observations are made again with new tokens; their notifications carry
 * the reqID of the command (or autoSub) that made them, as before. The client's notifications on the old tokens get
 * RST (RFC 7641 §3.6), which ends those at the client. Answers how many were taken back.
 */
export async function restoreRegistrations(
  target: RestoreTarget,
  saved: readonly SavedRegistration[],
  now = Date.now(),
): Promise<number> {
  let restored = 0;
  await Promise.all(
    saved.map(async (s) => {
      const remaining = Math.ceil((s.expiresAt - now) / 1000);
      if (remaining <= 0) return;
      const credentials = { kind: "lwm2m" as const, endpoint: target.normalise(s.endpoint) };
      const lease = await target.leases.acquire(credentials, s.peer.address, remaining + target.graceSeconds);
      if (!(lease instanceof Lease)) {
        target.log.info({ endpoint: s.endpoint, reason: lease.message }, "saved registration not restored");
        return;
      }
      const request = {
        kind: "register" as const,
        endpoint: s.endpoint,
        lifetime: s.lifetime,
        version: s.version,
        binding: s.binding,
        queueMode: s.queueMode,
        objects: s.objects,
      };
      const r = new ClientRegistration(s.id, s.endpoint, lease, s.peer, request, target.layer);
      r.refreshedAt = s.expiresAt - s.lifetime * 1000;
      if (!target.adopt(r)) return;
      restored++;
      for (const o of s.observations) {
        if (r.ended) return;
        const outcome = await observePath(target.ctx, r, o.path, o.reqID, o.format, true);
        if (outcome.status === "FAILED")
          target.log.info({ deviceId: r.deviceId, path: o.path, reason: outcome.message }, "observation not restored");
      }
    }),
  );
  return restored;
}
