export * from "./codec/result.js";
export * from "./codec/hex.js";
export * from "./codec/semtech-udp.js";
export * from "./codec/region.js";
export * from "./codec/join.js";
export * from "./codec/uplink.js";
export * from "./codec/dedup.js";
export * from "./codec/dev-addr.js";
