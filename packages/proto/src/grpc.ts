import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { AdapterMessageSchema, RegistryService } from "./gen/iot/registry/v1/registry_pb.js";
import { decodeUplinksMessage } from "./uplink-codec.js";

/**
 * Largest message either side sends or accepts, bytes (both ends are built with channelOptions). An uplink's payload
 * is at most 4,000,000 bytes (IOT_MAX_MESSAGE_SIZE's ceiling, checked by the adapter core before buffering), which
 * leaves room for its envelope; an adapter-core test checks that the largest uplink fits.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Most items (uplinks, downlinks, downlink results) gathered into one batch stream message, and the bytes of their
 * payloads and topics above which a batch goes out at once (far below MAX_MESSAGE_BYTES).
 */
export const BATCH_MAX_ITEMS = 500;
export const BATCH_MAX_BYTES = 1024 * 1024;

/** A view of the bytes, not a copy. */
const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Messages as protobuf-es encodes them; bytes already encoded (`encodeUplinksMessage`) go as they are. */
function serializer<D extends DescMessage>(schema: D) {
  return (message: MessageShape<D> | Uint8Array): Buffer =>
    asBuffer(message instanceof Uint8Array ? message : toBinary(schema, message));
}

/** Messages as protobuf-es decodes them; an adapter's uplinks through the uplink codec when it knows them. */
function deserializer<D extends DescMessage>(schema: D) {
  const decode = (bytes: Buffer): MessageShape<D> => fromBinary(schema, bytes);
  if (schema.typeName === AdapterMessageSchema.typeName)
    return (bytes: Buffer): MessageShape<D> =>
      (decodeUplinksMessage(bytes) as MessageShape<D> | undefined) ?? decode(bytes);
  return decode;
}

function methodDefinition(service: DescService, method: DescMethod): grpc.MethodDefinition<unknown, unknown> {
  return {
    path: `/${service.typeName}/${method.name}`,
    requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
    responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
    requestSerialize: serializer(method.input) as (m: unknown) => Buffer,
    requestDeserialize: deserializer(method.input),
    responseSerialize: serializer(method.output) as (m: unknown) => Buffer,
    responseDeserialize: deserializer(method.output),
    originalName: method.localName,
  };
}

/**
 * grpc-js service definition built from the protobuf-es descriptors, so the
 * wire format comes from the same generated code both sides import.
 */
export const registryServiceDefinition: grpc.ServiceDefinition = Object.fromEntries(
  RegistryService.methods.map((m) => [m.localName, methodDefinition(RegistryService, m)]),
);

/** Client constructor for RegistryService (methods `authenticate` and `connect`). */
export const RegistryGrpcClient = grpc.makeGenericClientConstructor(registryServiceDefinition, "RegistryService");

/** Channel options shared by client and server: message size limits and keepalive. */
export const channelOptions: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
  "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  "grpc.keepalive_time_ms": 10_000,
  "grpc.keepalive_timeout_ms": 5_000,
  "grpc.keepalive_permit_without_calls": 1,
  // Lets an adapter with several nodes ping every second (failoverKeepalive).
  "grpc.http2.min_ping_interval_without_data_ms": 1_000,
};

/**
 * Keepalive of an adapter given several central nodes: a node that vanishes without closing its connections (a frozen
 * process, a dropped network) is noticed within 3.5 s — a ping each second, 2.5 s for its answer — so the adapter is on
 * another node within the 5 s failover bound. 2.5 s leaves room for a busy node's event loop before it counts as gone.
 */
export const failoverKeepalive: grpc.ChannelOptions = {
  "grpc.keepalive_time_ms": 1_000,
  "grpc.keepalive_timeout_ms": 2_500,
};
