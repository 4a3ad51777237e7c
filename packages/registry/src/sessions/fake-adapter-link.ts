/**
 * Test support (not a test file): an adapter stream attached to a SessionTable that records what the registry
 * sends down it (downlinks with their payload as text, kicks); `open` reports a device's session open on it.
 */
import type { AdapterLink, DownlinkCommand, SessionTable } from "./session-table.js";

export function fakeAdapterLink(sessions: SessionTable, instanceId = "mqtt-1", protocol = 1) {
  const sent: Array<Omit<DownlinkCommand, "payload"> & { payload: string }> = [];
  const kicks: Array<{ deviceIntId: number; reason: string }> = [];
  const limits: Array<{ tenantId: string; maxUplinkRate: number }> = [];
  const link: AdapterLink = {
    instanceId,
    protocol,
    version: "t",
    attachedAt: 0,
    sendDownlink: (c) => sent.push({ ...c, payload: Buffer.from(c.payload).toString("utf8") }),
    kick: (deviceIntId, reason) => kicks.push({ deviceIntId, reason }),
    updatePolicies: () => {},
    updateSubscriptions: () => {},
    updateRetained: () => {},
    updateTenantLimits: (tenantId, maxUplinkRate) => limits.push({ tenantId, maxUplinkRate }),
  };
  sessions.attach(link);
  const sessionIds: string[] = [];
  const open = (deviceIntId: number) => {
    sessionIds.push(`s-${deviceIntId}-${sent.length}-${sessionIds.length}`);
    return sessions.open(instanceId, {
      sessionId: sessionIds.at(-1)!,
      credentialStamp: "",
      deviceIntId,
      tenantId: "t",
      clientIp: "",
      keepAlive: 0,
      openedAt: 0,
    });
  };
  /** The ids of the sessions `open` opened, oldest first. */
  return { link, sent, kicks, limits, open, sessionIds };
}
