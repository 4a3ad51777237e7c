import type { AedesOptions } from "aedes";
import { filterProblem, isAllowed, mountTopic } from "@iot/adapter-core";
import type { AdapterContext } from "../context.js";
import { isSessionMarker, noteRestored } from "../persistent-session.js";

/**
 * MQTT-3.8 SUBSCRIBE: each relative filter is validated and checked against
 * the device's subscribe policies. A refusal answers SUBACK 0x80 for that
 * filter and keeps the connection (MQTT-3.9.3); an accepted filter becomes
 * `<mountpoint><filter>`, so it can only ever match the device's own topics.
 */
export function authorizeSubscribeHook(ctx: AdapterContext): NonNullable<AedesOptions["authorizeSubscribe"]> {
  return (client, sub, done) => {
    const state = ctx.clients.state(client);
    if (!state) return done(new Error("subscribe from a connection that is not authenticated"));
    if (isSessionMarker(state, sub)) return done(null, null);
    const { device } = state.session;
    const filter = sub.topic;
    const problem = filterProblem(filter);
    if (problem || !isAllowed(state.session.policies, "subscribe", filter, ctx.defaultAllow)) {
      ctx.stats.denied++;
      ctx.log.info(
        { deviceId: device.deviceId, tenantId: device.tenantId, filter, reason: problem ?? "denied by policy" },
        "subscription refused",
      );
      return done(null, null);
    }
    sub.topic = mountTopic(device.mountpoint, filter);
    noteRestored(state, sub, filter);
    done(null, sub);
  };
}
