import { create } from "@bufbuild/protobuf";
import {
  StoredSubscriptionSchema,
  type StoredSubscription as PbStoredSubscription,
} from "./gen/iot/registry/v1/registry_pb.js";

/**
 * One subscription of a persistent MQTT session as both ends of the Connect stream hold it: a filter relative to the
 * device's mountpoint, its QoS and MQTT 5.0 options (absent when unset). The adapter reports them, the registry
 * stores them and gives them back at the next authentication (docs/devices/mqtt.md "Persistent sessions").
 */
export interface StoredSubscription {
  readonly topic: string;
  readonly qos: number;
  readonly noLocal?: boolean;
  readonly retainAsPublished?: boolean;
  readonly retainHandling?: number;
  /** Absent: none. */
  readonly subscriptionIdentifier?: number;
}

/** The protobuf message → a StoredSubscription (options left out when unset). */
export function storedSubscriptionFromProto(s: PbStoredSubscription): StoredSubscription {
  return {
    topic: s.topic,
    qos: s.qos,
    ...(s.noLocal ? { noLocal: true } : {}),
    ...(s.retainAsPublished ? { retainAsPublished: true } : {}),
    ...(s.retainHandling ? { retainHandling: s.retainHandling } : {}),
    ...(s.subscriptionIdentifier ? { subscriptionIdentifier: s.subscriptionIdentifier } : {}),
  };
}

/** A StoredSubscription → the protobuf message. */
export function storedSubscriptionToProto(s: StoredSubscription): PbStoredSubscription {
  return create(StoredSubscriptionSchema, {
    topic: s.topic,
    qos: s.qos,
    noLocal: s.noLocal ?? false,
    retainAsPublished: s.retainAsPublished ?? false,
    retainHandling: s.retainHandling ?? 0,
    subscriptionIdentifier: s.subscriptionIdentifier ?? 0,
  });
}
