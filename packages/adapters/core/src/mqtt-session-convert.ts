/**
 * Conversions of the persistent MQTT session's protobuf messages (docs/devices/mqtt.md "Persistent sessions"):
 * the CONNECT's session flags, the session an authentication resumes, the adapter's reports of it, and the packet
 * identifier an unacknowledged command goes again with.
 */
import {
  AdapterMessageSchema,
  create,
  type AdapterMessage,
  type Downlink as PbDownlink,
  type MqttSessionRequest,
  type MqttSessionState as PbMqttSessionState,
  storedSubscriptionFromProto,
  storedSubscriptionToProto,
} from "@iot/proto";
import type {
  DeviceSession,
  MqttSessionAsk,
  MqttSessionReport,
  MqttSessionState,
  ResumedFlow,
} from "./registry-client.js";

/** AuthenticateRequest.mqtt_session of a CONNECT that asks for a session. */
export function mqttSessionRequest(ask: MqttSessionAsk): MqttSessionRequest {
  return {
    $typeName: "iot.registry.v1.MqttSessionRequest",
    cleanStart: ask.cleanStart,
    expiryInterval: ask.expiryInterval,
  };
}

/** AuthenticateResponse.mqtt_session → the session resumed. */
export function fromMqttSessionState(pb: PbMqttSessionState): MqttSessionState {
  return { present: pb.present, subscriptions: pb.subscriptions.map(storedSubscriptionFromProto) };
}

/** A persistent session's report as an AdapterMessage. */
export function mqttSessionMessage(session: DeviceSession, r: MqttSessionReport, atMs: number): AdapterMessage {
  return create(AdapterMessageSchema, {
    kind: {
      case: "mqttSession",
      value: {
        sessionId: session.sessionId,
        deviceIntId: BigInt(session.device.deviceIntId),
        tenantId: session.device.tenantId,
        clientId: r.clientId,
        subscriptions: r.subscriptions.map(storedSubscriptionToProto),
        expiryInterval: r.expiryInterval,
        ended: r.ended,
        atMs: BigInt(atMs),
      },
    },
  });
}

/** Downlink.resume_packet_id/resume_released → the flow to resume, when the command went out before. */
export function resumedFlowOf(d: PbDownlink): ResumedFlow | undefined {
  return d.resumePacketId > 0 ? { packetId: d.resumePacketId, released: d.resumeReleased } : undefined;
}

/** DownlinkResult.packet_id/released of an outcome. */
export function resumedFlowFields(resume: ResumedFlow | undefined): { packetId?: number; released?: boolean } {
  return resume ? { packetId: resume.packetId, released: resume.released } : {};
}
