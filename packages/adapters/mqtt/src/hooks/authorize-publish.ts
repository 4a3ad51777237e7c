import type { AedesOptions, Client } from "aedes";
import {
  AdapterError,
  isAllowed,
  mountTopic,
  publishTopicProblem,
  type Uplink,
  type UplinkResend,
} from "@iot/adapter-core";
import type { AdapterContext } from "../context.js";
import { ReasonCode } from "../reason-codes.js";
import { keptProperties, MAX_KEPT_PROPERTIES_BYTES, stateProperties } from "./uplink-properties.js";

/**
 * MQTT-3.3 PUBLISH from a device (and its will, published when it drops):
 * the relative topic is validated and checked against the device's publish
 * policies, then sent to the registry as an uplink.
 *
 * - QoS 1/2: aedes sends PUBACK/PUBREC only after this calls back, and this
 *   calls back only once the registry acked the uplink after its durable
 *   write. If the registry rejects it or the buffer is full the connection is
 *   closed: MQTT 3.1.1 has no negative PUBACK, and the device will resend.
 *   An MQTT 5.0 device is told why first, by DISCONNECT 0x89 server busy,
 *   0x96 message rate too high or 0x83 implementation specific error: a
 *   negative PUBACK would tell it the message is refused for good.
 * - Over the tenant's uplink rate (maxUplinkRate, the core's token bucket) an
 *   uplink is refused before it is sent: QoS 1/2 take the rejection path
 *   above (no PUBACK, connection closed), QoS 0 is not stored.
 * - QoS 0: sent on without waiting; a failure is only logged.
 * - An invalid topic closes the connection (MQTT-3.3.5-2 allows closing
 *   instead of a silent ack; it is a bug in the device), and so does a
 *   payload over IOT_MAX_MESSAGE_SIZE (packets announced far larger never
 *   get this far: the connection's size gate closes it from their header).
 *   An MQTT 5.0 device gets DISCONNECT 0x90 topic name invalid or 0x95
 *   packet too large first.
 * - MQTT 5.0: user properties, content type, payload format indicator,
 *   response topic and correlation data are kept with the uplink, as its
 *   metadata (`keptProperties`); over MAX_KEPT_PROPERTIES_BYTES the publish
 *   is refused with DISCONNECT 0x97 quota exceeded.
 * - A publish the device's policies deny is dropped and logged, and the
 *   connection stays up: it is acked like any other (MQTT 3.1.1 has no
 *   negative PUBACK), never stored, and routed to a topic outside every
 *   mountpoint so no subscriber sees it. An MQTT 5.0 device gets PUBACK
 *   (or PUBREC) 0x87 not authorized with the reason (aedes answers a refusal
 *   of an MQTT 5.0 publish so and keeps the connection).
 *
 * The packet's topic becomes `<mountpoint><topic>` so aedes routes it only
 * inside the device's namespace, and its retain flag is cleared: the
 * registry is the store, and retained messages in this process's memory
 * would vanish on restart anyway.
 */
/** A publish refused by a negative PUBACK (MQTT 5.0): the connection stays, so it is no reason for its end. */
export class PublishDenied extends Error {
  override readonly name = "PublishDenied";
}

/** Dropped publishes go here: `$` topics match no device filter, and none is under a mountpoint. */
const DROPPED_PREFIX = "$dropped/";

type Done = Parameters<NonNullable<AedesOptions["authorizePublish"]>>[2];
type Packet = Parameters<NonNullable<AedesOptions["authorizePublish"]>>[1];
type ClientState = NonNullable<ReturnType<AdapterContext["clients"]["state"]>>;

/**
 * Drops a publish the policies deny: an MQTT 3.1.1 one is acked without being stored, routed where no subscriber sees
 * it; an MQTT 5.0 one is refused (PUBACK 0x87, written by aedes).
 */
function deny(
  ctx: AdapterContext,
  client: Client,
  state: ClientState,
  packet: Packet,
  topic: string,
  reason: string,
  done: Done,
) {
  const { device } = state.session;
  ctx.stats.denied++;
  ctx.log.warn({ deviceId: device.deviceId, tenantId: device.tenantId, topic, reason }, "publish dropped");
  if (client.version === 5) return done(new PublishDenied(reason));
  packet.topic = `${DROPPED_PREFIX}${device.mountpoint}${topic}`;
  packet.retain = false;
  done(null);
}

/** Refuses a publish: the connection is closed (an MQTT 5.0 device is told why: DISCONNECT `reasonCode`). */
function refuse(
  ctx: AdapterContext,
  client: Client,
  state: ClientState,
  topic: string,
  reason: string,
  reasonCode: number,
  done: Done,
) {
  const { device } = state.session;
  ctx.stats.denied++;
  state.closeReason = `publish refused: ${reason}`;
  ctx.log.warn(
    { deviceId: device.deviceId, tenantId: device.tenantId, topic, reason },
    "publish refused; closing connection",
  );
  closeFor(client, reasonCode, reason, done);
}

/**
 * Ends the publish's connection with `err`: aedes closes an MQTT 3.1/3.1.1 one when the hook calls back with an error.
 * aedes keeps an MQTT 5.0 one open and answers a negative PUBACK instead, so that one is sent DISCONNECT `reasonCode`
 * (MQTT 5.0 §3.14) and closed first; the error then reaches aedes with nobody left to answer.
 */
function closeFor(client: Client, reasonCode: number, reason: string, done: Done, err = new Error(reason)) {
  if (client.version !== 5) return done(err);
  client.disconnect({ reasonCode, properties: { reasonString: reason } }, () => done(err));
}

/** The DISCONNECT reason code for an uplink the registry did not store. */
function uplinkReasonCode(err: Error): number {
  if (!(err instanceof AdapterError)) return ReasonCode.SERVER_BUSY;
  if (err.code === "RATE_LIMITED") return ReasonCode.MESSAGE_RATE_TOO_HIGH;
  if (err.code === "UPLINK_REJECTED" || err.code === "REQUEST_REJECTED")
    return ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR;
  if (err.code === "MESSAGE_TOO_LARGE") return ReasonCode.PACKET_TOO_LARGE;
  return ReasonCode.SERVER_BUSY;
}

/** Counts and logs an uplink the registry did not store (not a QoS 0 one over the tenant's rate: logged elsewhere). */
function failed(ctx: AdapterContext, state: ClientState, topic: string, qos: number, err: Error) {
  ctx.stats.uplinkFailures++;
  if (err instanceof AdapterError && err.code === "RATE_LIMITED" && qos === 0) return;
  const { device } = state.session;
  ctx.log.warn(
    { deviceId: device.deviceId, tenantId: device.tenantId, topic, qos, err: err.message },
    "uplink not stored",
  );
}

/**
 * A QoS 1/2 publish's resend identity: its packet identifier, which a resend repeats with DUP=1 (MQTT-3.3.1-1). A DUP=0
 * publish is a new message even when it reuses an identifier, so only DUP=1 asks the registry to look for a first copy
 * (one stored through an adapter process that died before the PUBACK reached the device).
 */
function resendOf(packet: Packet): UplinkResend {
  return { id: `mqtt:${packet.messageId}`, maybe: packet.dup };
}

/**
 * A retained uplink the registry stored becomes the topic's retained message here at once (MQTT-3.3.1-5; an empty
 * one clears it, MQTT-3.3.1-10): a SUBSCRIBE the device sends after the PUBACK finds it before the registry's
 * RetainedUpdate, which carries the same, arrives. Only userProperties, contentType and payloadFormatIndicator go
 * with it, as the registry sends a retained uplink's.
 */
function keepRetained(ctx: AdapterContext, uplink: Uplink, packet: Packet): void {
  const properties = packet.properties && stateProperties(packet.properties);
  ctx.retained.put(uplink.deviceIntId, {
    topic: uplink.topic,
    payload: uplink.payload,
    qos: uplink.qos,
    ...(properties ? { properties } : {}),
  });
}

/**
 * The hook. Its helpers are module functions and not closures made per publish: at tens of thousands of publishes
 * a second those closures were a measurable share of the adapter's CPU profile.
 */
export function authorizePublishHook(ctx: AdapterContext): NonNullable<AedesOptions["authorizePublish"]> {
  return (client, packet, done) => {
    const state = ctx.clients.state(client);
    if (!client || !state || state.kicked)
      return done(new Error("publish from a connection that is not (or no longer) authenticated"));
    const { session, connect } = state;
    const { device } = session;
    const topic = packet.topic;
    const size = typeof packet.payload === "string" ? Buffer.byteLength(packet.payload) : packet.payload.length;
    if (size > ctx.maxMessageSize)
      return refuse(
        ctx,
        client,
        state,
        topic,
        `message of ${size} bytes is larger than IOT_MAX_MESSAGE_SIZE (${ctx.maxMessageSize} bytes)`,
        ReasonCode.PACKET_TOO_LARGE,
        done,
      );
    let metadata: string | undefined;
    if (client.version === 5) {
      const kept = keptProperties(packet.properties);
      if (kept && "tooLarge" in kept)
        return refuse(
          ctx,
          client,
          state,
          topic,
          `properties of ${kept.tooLarge} bytes are over the ${MAX_KEPT_PROPERTIES_BYTES} bytes kept with a message`,
          ReasonCode.QUOTA_EXCEEDED,
          done,
        );
      metadata = kept?.metadata;
    }
    const problem = publishTopicProblem(topic);
    if (problem)
      return refuse(ctx, client, state, topic, `invalid topic: ${problem}`, ReasonCode.TOPIC_NAME_INVALID, done);
    if (!isAllowed(session.policies, "publish", topic, ctx.defaultAllow))
      return deny(ctx, client, state, packet, topic, `publish to "${topic}" denied by policy`, done);

    const payload = typeof packet.payload === "string" ? Buffer.from(packet.payload) : packet.payload;
    const qos = packet.qos;
    const uplink: Uplink = {
      sessionId: session.sessionId,
      tenantId: device.tenantId,
      deviceIntId: device.deviceIntId,
      topic,
      payload,
      qos,
      clientIp: connect.clientIp,
      receivedAtMs: Date.now(),
      resend: qos > 0 ? resendOf(packet) : undefined,
      metadata,
      retain: packet.retain,
    };
    ctx.stats.uplinks++;
    packet.topic = mountTopic(device.mountpoint, topic);
    packet.retain = false;
    if (qos === 0) {
      ctx.registry.publishThen(uplink, (err) => {
        if (err) failed(ctx, state, topic, qos, err);
        else if (uplink.retain) keepRetained(ctx, uplink, packet);
      });
      return done(null);
    }
    // One closure per publish, called once: the PUBACK (done) waits for the registry's ack after the durable write.
    // Waiting for room in a full buffer instead of refusing: aedes reads no more of this connection until its packets
    // are done, so a slow registry slows the device down instead of having its connection closed.
    ctx.registry.publishThen(
      uplink,
      (err) => {
        if (!err) {
          if (uplink.retain) keepRetained(ctx, uplink, packet);
          return done(null);
        }
        failed(ctx, state, topic, qos, err);
        state.closeReason = `uplink not stored: ${err.message}`;
        closeFor(client, uplinkReasonCode(err), "message not stored, send it again later", done, err);
      },
      true,
    );
  };
}
