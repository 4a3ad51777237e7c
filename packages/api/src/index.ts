export { createApp, MAX_BODY_BYTES } from "./app.js";
export type { AppDeps } from "./deps.js";
