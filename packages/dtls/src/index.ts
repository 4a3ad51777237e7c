export { type Clock, systemClock } from "./clock.js";
export { DtlsServer, type DtlsPeer, type DtlsServerOptions } from "./udp-server.js";
export { ServerSession, type SessionOptions } from "./session.js";
export { DtlsError } from "./result.js";
