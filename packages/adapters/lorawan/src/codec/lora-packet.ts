import loraPacketModule from "lora-packet";

/**
 * lora-packet's functions (`fromWire`, `fromFields`, `verifyMIC`, `decrypt`, `generateSessionKeys10`, …).
 *
 * lora-packet is CommonJS that sets `module.exports` to its function table while its typings declare an ES
 * `export default`; Node's ESM loader hands us `module.exports` itself, TypeScript expects it under `.default`.
 * This takes whichever holds the table, so the same code runs under tsx, vitest and plain Node.
 */
type LoraPacketLib = (typeof loraPacketModule)["default"];
const imported = loraPacketModule as unknown as LoraPacketLib & { default?: LoraPacketLib };
export const loraPacket: LoraPacketLib = imported.default ?? imported;
