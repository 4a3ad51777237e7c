import type { Client } from "aedes";
import { isAllowed, mountTopic, publishTopicProblem, type Downlink, type DownlinkOutcome } from "@iot/adapter-core";
import { AckFlow, MAX_TIMER_MS } from "./ack-flow.js";
import { highestGrantedQos } from "./granted-qos.js";
import { commandPublishProperties, type CommandPublishProperties } from "./command-properties.js";
import type { ClientState } from "./client-table.js";
import type { AdapterContext } from "./context.js";
import { sendRoom } from "./send-window.js";

const failed = (message: string): DownlinkOutcome => ({ status: "FAILED", message });
const queued = (message: string): DownlinkOutcome => ({ status: "QUEUED", message });

/**
 * Delivers a registry command to a device connected here, as a PUBLISH on
 * `<mountpoint><topic or defaultDownlinkTopic>`.
 *
 * MQTT servers only send what a client subscribed to: a command for a topic
 * the device has no subscription for waits here until it subscribes to one
 * (a device that reconnects to collect its queued commands may take its time),
 * however long that takes within the command's expiry.
 *
 * Results: QoS 0 → SENT once written; QoS 1 and 2 as AckFlow follows them
 * (DELIVERED on PUBACK, or on PUBCOMP after PUBREC). QUEUED (the registry
 * keeps the command for the device's next session) when the device
 * disconnects, or the command expires, before a matching subscription. FAILED
 * when the device is not connected here, the topic is invalid or denied by its
 * policies, or the write fails. QoS is capped at the QoS the device was
 * granted. At most the device's Receive Maximum QoS 1/2 commands are in flight
 * to it at once; later ones wait for room in order (`sendRoom`), QUEUED when
 * the device disconnects or the command expires first. An MQTT 5.0 device
 * gets the command's PUBLISH properties, and its remaining TTL as Message
 * Expiry Interval (`commandPublishProperties`); a 3.1.1 device gets none.
 * One that accepts topic aliases gets the command's topic as an alias after
 * the first command on it (authorizeForward, `OutboundTopicAliases`).
 */
export async function deliverDownlink(ctx: AdapterContext, downlink: Downlink): Promise<DownlinkOutcome> {
  const client = ctx.clients.ofDevice(downlink.deviceIntId).at(-1);
  const state = ctx.clients.state(client);
  if (!client || !state) return failed("device is not connected to this adapter");
  // A QoS 2 command the device answered PUBREC for on an earlier connection: only PUBREL goes (see AckFlow).
  if (downlink.resume?.released) return release(ctx, client, state, downlink.resume.packetId);
  const { device, policies } = state.session;
  const topic = downlink.topic || device.defaultDownlinkTopic;
  const problem = publishTopicProblem(topic);
  if (problem) return failed(`invalid topic "${topic}": ${problem}`);
  if (!isAllowed(policies, "subscribe", topic, ctx.defaultAllow))
    return failed(`topic "${topic}" is denied by the device's policies`);
  const mounted = mountTopic(device.mountpoint, topic);
  const granted = await grantedQos(client, state, mounted, downlink.expiresAtMs);
  if (client.closed) return queued("device disconnected before it subscribed");
  if (granted < 0) return queued(`expired before the device subscribed to "${topic}"`);
  const qos = Math.min(downlink.qos, 2, granted) as 0 | 1 | 2;
  const freeSlot = qos > 0 ? await sendRoom(client, downlink.expiresAtMs) : undefined;
  if (qos > 0 && !freeSlot)
    return queued(
      client.closed
        ? "device disconnected while earlier commands were in flight"
        : "expired while earlier commands were in flight",
    );
  ctx.stats.downlinks++;
  const properties = client.version === 5 ? commandPublishProperties(downlink, Date.now()) : undefined;
  // Sent before, unacknowledged, in the session this connection resumed: the same packet identifier again, DUP 1.
  const resumeId = state.session.mqttSession?.present ? downlink.resume?.packetId : undefined;
  const outcome = await send(ctx, client, state, mounted, Buffer.from(downlink.payload), qos, resumeId, properties);
  freeSlot?.();
  return outcome;
}

/**
 * The highest QoS granted to the client's filters matching `mounted`, waiting for a first one until the client
 * disconnects or `expiresAtMs` (epoch ms, 0 = no limit) passes (-1 then).
 */
function grantedQos(
  client: Client,
  state: ClientState,
  mounted: string,
  expiresAtMs: number,
): number | Promise<number> {
  const matching = () => highestGrantedQos(state.granted, mounted, state.leaving);
  const first = matching();
  if (first >= 0) return first;
  return new Promise((resolve) => {
    const done = (granted: number) => {
      clearTimeout(timer);
      state.subscribeWaiters.delete(wake);
      resolve(granted);
    };
    // Called after every SUBSCRIBE of the client and when it disconnects.
    const wake = () => {
      if (client.closed) return done(-1);
      const granted = matching();
      if (granted >= 0) done(granted);
    };
    const timer =
      expiresAtMs > 0
        ? setTimeout(() => done(matching()), Math.min(expiresAtMs - Date.now(), MAX_TIMER_MS))
        : undefined;
    state.subscribeWaiters.add(wake);
  });
}

/** Writes the PUBLISH and follows a QoS 1/2 one (AckFlow) once authorizeForward numbered it. */
function send(
  ctx: AdapterContext,
  client: Client,
  state: ClientState,
  topic: string,
  payload: Buffer,
  qos: 0 | 1 | 2,
  resumeId: number | undefined,
  properties: CommandPublishProperties | undefined,
): Promise<DownlinkOutcome> {
  return new Promise((resolve) => {
    let flow: AckFlow | undefined;
    let done = false;
    const settle = (outcome: DownlinkOutcome) => {
      if (done) return;
      done = true;
      state.downlinkMarks.delete(payload);
      resolve(outcome);
    };
    state.downlinkMarks.set(payload, (packet) => {
      if (packet.messageId === undefined || (packet.qos !== 1 && packet.qos !== 2)) return;
      if (resumeId !== undefined && !state.awaitingAck.has(resumeId)) {
        packet.messageId = resumeId;
        packet.dup = true;
      }
      flow = new AckFlow(ctx, state, { messageId: packet.messageId, qos: packet.qos }, settle);
    });
    const packet = { cmd: "publish" as const, topic, payload, qos, retain: false, dup: false };
    client.publish(properties ? { ...packet, properties } : packet, (err) => {
      if (state.downlinkMarks.has(payload)) return settle(failed("the device's connection did not accept the message"));
      // A QoS 1/2 PUBLISH whose connection ended: the flow's `dropped` answers, as it does for a later end.
      if (flow && client.closed) return;
      if (err || client.closed) {
        const outcome = failed(`write failed: ${err?.message ?? "connection closed"}`);
        return flow ? flow.settle(outcome) : settle(outcome);
      }
      state.topicAliases?.written(topic);
      if (!flow) return settle({ status: "SENT" });
      flow.written();
    });
  });
}

/** Resumes a QoS 2 command past PUBREC: PUBREL with its packet identifier after the CONNACK, PUBCOMP awaited. */
function release(ctx: AdapterContext, client: Client, state: ClientState, packetId: number): Promise<DownlinkOutcome> {
  ctx.stats.downlinks++;
  return new Promise((resolve) =>
    new AckFlow(ctx, state, { messageId: packetId, qos: 2 }, resolve, true).release(client),
  );
}
