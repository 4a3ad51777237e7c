export * from "./codec/result.js";
export * from "./codec/register-address.js";
