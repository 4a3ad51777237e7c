export { createCoapAdapter, type CoapAdapter, type CoapAdapterOptions, type Peer } from "./coap-adapter.js";
export { coapAdapterSettings, type CoapAdapterConfig } from "./config.js";
export { listenDtls, type DtlsListener } from "./transport/dtls.js";
export { dtlsCertificates, dtlsHostnames, verifyClientChain, type DtlsCertificates } from "./dtls-certificates.js";
export { SecurePeers, type SecurePeersOptions, type SecureTarget } from "./secure-peers.js";
export { listenUdp, type DatagramTarget, type UdpListener } from "./transport/udp.js";
export {
  createMessageLayer,
  MAX_EXCHANGES,
  type CoapHandler,
  type CoapReply,
  type CoapRequest,
  type Confirmation,
  type MessageLayer,
  type MessageLayerOptions,
  type RequestHead,
} from "./message-layer.js";
export type { ClientRequest, ClientResponse } from "./client-exchange.js";
export type { ClientObservation, NotificationListener } from "./client-observations.js";
export { CoapError, type CoapErrorCode } from "./coap-error.js";
export { CODES } from "./messages.js";
export { MemoryLink, type Crossing, type Fate } from "./memory-link.js";
