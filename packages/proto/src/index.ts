export * from "./gen/iot/registry/v1/registry_pb.js";
export {
  registryServiceDefinition,
  RegistryGrpcClient,
  channelOptions,
  failoverKeepalive,
  MAX_MESSAGE_BYTES,
  BATCH_MAX_ITEMS,
  BATCH_MAX_BYTES,
} from "./grpc.js";
export {
  encodeUplinksMessage,
  decodeUplinksMessage,
  type EncodedAdapterMessage,
  type UplinkInit,
} from "./uplink-codec.js";
export {
  storedSubscriptionFromProto,
  storedSubscriptionToProto,
  type StoredSubscription as SessionSubscription,
} from "./stored-subscription.js";
export { create, toBinary, fromBinary } from "@bufbuild/protobuf";
export * as grpc from "@grpc/grpc-js";
