/**
 * The device sessions an adapter reports on its Connect stream: opened (checked once more against revocations,
 * then queued commands delivered), closed, and re-announced in a Hello after the link was down (what changed
 * meanwhile applies then). Each goes to the session table and, as connect logs and online state, to the
 * connectivity writer.
 */
import { Protocol, type SessionClosed, type SessionOpened } from "@iot/proto";
import { sessionRevocations } from "../domain/session-revocations.js";
import { tenantLimits } from "../domain/tenants.js";
import type { AdapterLink, LiveSession } from "../sessions/session-table.js";
import type { ConnectDeps } from "./connect-stream.js";

/** Sends a device's queued commands once a session of it (or of its gateway) opened here. */
export type DeliverQueued = (deviceIntId: number) => void;

const toSession = (s: SessionOpened): LiveSession => ({
  sessionId: s.sessionId,
  deviceIntId: Number(s.deviceIntId),
  tenantId: s.tenantId,
  clientIp: s.clientIp,
  keepAlive: s.keepAlive,
  openedAt: Number(s.openedAtMs) || Date.now(),
  credentialStamp: s.credentialStamp,
  sleeping: s.sleeping,
});

/** A session ended: offline connect log; the device stays online only while it holds another session. */
export function closeSession(deps: Pick<ConnectDeps, "connectivity">, s: LiveSession, reason: string, at = Date.now()) {
  deps.connectivity.record({
    kind: "closed",
    deviceIntId: s.deviceIntId,
    sessionId: s.sessionId,
    ip: s.clientIp || null,
    keepAlive: s.keepAlive || null,
    at,
    reason,
  });
}

/** A session came up (or was re-announced): online connect log and state. */
function openSession(deps: ConnectDeps, s: LiveSession, kind: "opened" | "announced", instanceId: string): void {
  deps.connectivity.record({
    kind,
    instanceId,
    deviceIntId: s.deviceIntId,
    sessionId: s.sessionId,
    ip: s.clientIp,
    keepAlive: s.keepAlive,
    at: s.openedAt,
  });
}

/** A session an adapter opened: its device goes online and gets its queued commands. */
export async function sessionOpened(
  deps: ConnectDeps,
  from: AdapterLink,
  opened: SessionOpened,
  deliverQueued: DeliverQueued,
): Promise<void> {
  const s = toSession(opened);
  deps.sessions.open(from.instanceId, s);
  openSession(deps, s, "opened", from.instanceId);
  // A revocation or change made between its authentication and now must not be missed; a session this node
  // did not admit (it restarted meanwhile) is checked against the records first.
  const missed = deps.sessions.takePending(s.sessionId);
  const revoked = missed ? missed.revoked : (await sessionRevocations(deps.db, [s])).get(s.sessionId);
  if (revoked) return deps.sessions.kick(s.deviceIntId, revoked);
  if (missed && missed.stale.size > 0)
    void deps.live
      .sessionsOpened([s.deviceIntId], missed.stale)
      .catch((err: unknown) => deps.logger.error({ err }, "push to a new session failed"));
  // A Modbus gateway's configuration goes before its queued commands (its slaves' writes need it).
  if (from.protocol === (Protocol.MODBUS as number)) await deps.modbusConfig.sessionOpened(s.deviceIntId, "opened");
  return deliverQueued(s.deviceIntId);
}

/** A session an adapter closed; an unknown one (e.g. opened before this node restarted) still closes its device. */
export function sessionClosed(deps: ConnectDeps, from: AdapterLink, v: SessionClosed): void {
  const session = deps.sessions.close(from.instanceId, v.sessionId) ?? {
    sessionId: v.sessionId,
    deviceIntId: Number(v.deviceIntId),
    tenantId: v.tenantId,
    clientIp: "",
    keepAlive: 0,
    openedAt: 0,
    credentialStamp: "",
  };
  closeSession(deps, session, v.reason, Number(v.closedAtMs) || Date.now());
}

/**
 * The sessions an adapter's Hello lists, after its link was down: those it held before but no longer lists ended
 * meanwhile; revoked ones are kicked before any replayed uplink of theirs is handled; the others get their device's
 * current policies, proxy subscriptions and queued commands, and each tenant's uplink rate is sent again (a push of
 * it may have been missed).
 */
export async function sessionsReannounced(
  deps: ConnectDeps,
  link: AdapterLink,
  sessions: readonly SessionOpened[],
  previous: readonly LiveSession[],
  deliverQueued: DeliverQueued,
): Promise<void> {
  const announced = sessions.map(toSession);
  const alive = new Set(announced.map((s) => s.sessionId));
  for (const gone of previous.filter((s) => !alive.has(s.sessionId)))
    closeSession(deps, gone, "session ended while the adapter was away");
  const revoked = await sessionRevocations(deps.db, announced);
  for (const s of announced) {
    deps.sessions.open(link.instanceId, s);
    openSession(deps, s, "announced", link.instanceId);
  }
  const kept = new Set<number>();
  for (const s of announced) {
    const reason = revoked.get(s.sessionId);
    if (reason) deps.sessions.kick(s.deviceIntId, reason);
    else kept.add(s.deviceIntId);
  }
  for (const id of kept) {
    if (link.protocol === (Protocol.MODBUS as number)) await deps.modbusConfig.sessionOpened(id, "announced");
    deliverQueued(id);
  }
  void deps.live
    .sessionsOpened([...kept], new Set(["policies", "subscriptions", "retained"]))
    .catch((err: unknown) => deps.logger.error({ err }, "push to re-announced sessions failed"));
  if (revoked.size > 0)
    deps.logger.info({ instance: link.instanceId, revoked: revoked.size }, "re-announced sessions revoked");
  for (const tenantId of new Set(announced.map((s) => s.tenantId)))
    link.updateTenantLimits(tenantId, (await tenantLimits(deps.db, tenantId)).maxUplinkRate);
}
