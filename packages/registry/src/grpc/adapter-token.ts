import { timingSafeEqual } from "node:crypto";
import { grpc } from "@iot/proto";

/** Metadata key adapters send their token under (value `Bearer <token>`). */
const ADAPTER_TOKEN_HEADER = "authorization";

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type AnyCall = { metadata: grpc.Metadata; emit(event: "error", status: Partial<grpc.StatusObject>): boolean };
type AnyHandler = (call: AnyCall, callback?: (err: Partial<grpc.StatusObject>) => void) => void;

/**
 * Wraps every handler so that a call whose metadata lacks `authorization:
 * Bearer <token>` ends UNAUTHENTICATED before it is served. Without a token
 * the handlers are returned as they are (the endpoint is on loopback then).
 */
export function requireAdapterToken(
  handlers: grpc.UntypedServiceImplementation,
  token: string | undefined,
): grpc.UntypedServiceImplementation {
  if (!token) return handlers;
  const expected = `Bearer ${token}`;
  const refusal = { code: grpc.status.UNAUTHENTICATED, details: "adapter token missing or wrong (IOT_REGISTRY_TOKEN)" };
  const wrap =
    (handler: AnyHandler): AnyHandler =>
    (call, callback) => {
      const sent = call.metadata.get(ADAPTER_TOKEN_HEADER)[0];
      if (typeof sent === "string" && sameSecret(sent, expected)) return handler(call, callback);
      if (callback) return callback(refusal);
      call.emit("error", refusal); // a stream: grpc-js sends this status and ends it
    };
  return Object.fromEntries(Object.entries(handlers).map(([name, h]) => [name, wrap(h as unknown as AnyHandler)]));
}
