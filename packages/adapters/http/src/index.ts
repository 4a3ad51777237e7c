export { createHttpAdapter, type HttpAdapter, type HttpAdapterOptions } from "./http-adapter.js";
export { httpAdapterSettings, type HttpAdapterConfig } from "./config.js";
