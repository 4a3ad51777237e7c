export { type Clock, systemClock } from "./clock.js";
export { DtlsServer, type DtlsPeer, type DtlsServerOptions } from "./udp-server.js";
export { ServerSession } from "./session.js";
export type { EstablishedInfo, SessionOptions } from "./session-options.js";
export { DtlsError } from "./result.js";
export type { CheckClientCertificate, ClientIdentity } from "./certificate-exchange.js";
export type { SessionCacheOptions } from "./session-cache.js";
