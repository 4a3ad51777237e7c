export * from "./settings.js";
export * from "./startup.js";
export * from "./metrics.js";
export * from "./basic-auth.js";
export * from "./backoff.js";
