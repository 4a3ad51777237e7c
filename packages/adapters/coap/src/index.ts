export { createCoapAdapter, type CoapAdapter, type CoapAdapterOptions, type Peer } from "./coap-adapter.js";
export { coapAdapterSettings, type CoapAdapterConfig } from "./config.js";
export { listenUdp, type UdpListener } from "./transport/udp.js";
export {
  createMessageLayer,
  type CoapHandler,
  type CoapReply,
  type CoapRequest,
  type Confirmation,
  type MessageLayer,
  type MessageLayerOptions,
  type RequestHead,
} from "./message-layer.js";
