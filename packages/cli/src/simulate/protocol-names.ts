/**
 * The names `iot simulate --protocol` takes, for its help: protocols.ts loads every adapter package, which the CLI
 * only does when `simulate` runs (protocols.test.ts keeps the two lists the same).
 */
export const SIM_PROTOCOL_NAMES: readonly string[] = ["mqtt", "coap", "http", "lwm2m", "modbus", "lorawan"];
