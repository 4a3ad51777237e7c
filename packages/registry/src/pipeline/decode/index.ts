export * from "./types.js";
export { matchStreams } from "./match-streams.js";
export { decodeJson, DEVICE_TIME_MEMBER, MIN_DEVICE_TIME_MS } from "./decode-json.js";
export { decodeBinary, LENGTH_PREFIX_BYTES } from "./decode-binary.js";
export { decodeUplink, decodeStream, type DecodedUplink } from "./decode-uplink.js";
