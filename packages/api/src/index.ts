export { createApp, MAX_BODY_BYTES, openApiDocument } from "./app.js";
export type { AppDeps } from "./deps.js";
