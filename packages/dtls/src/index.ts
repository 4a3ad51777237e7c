export { type Clock, systemClock } from "./clock.js";
export { DtlsServer, type DtlsPeer, type DtlsServerOptions } from "./udp-server.js";
export { type EstablishedInfo, ServerSession, type SessionOptions } from "./session.js";
export { DtlsError } from "./result.js";
export type { CheckClientCertificate, ClientIdentity } from "./certificate-exchange.js";
export type { SessionCacheOptions } from "./session-cache.js";
