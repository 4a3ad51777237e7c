export * from "./codec/result.js";
export * from "./codec/register-address.js";
export * from "./codec/value-codec.js";
export * from "./codec/read-plan.js";
