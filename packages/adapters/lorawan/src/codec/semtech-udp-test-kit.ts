/**
 * Datagrams of the Semtech UDP tests: the gateway EUI they come from, builders of a datagram from its header and
 * JSON, a valid rxpk to patch, and the stat of the upstream PROTOCOL.TXT example.
 */

/** The gateway every test datagram comes from. */
export const EUI = "aa555a0000000001";

/** Bytes from hex digits, spaces allowed. */
export const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

/** A datagram: its header (hex) followed by `json`, when given, as JSON. */
export const datagram = (head: string, json?: unknown) =>
  Buffer.concat([hex(head), json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json))]);

/** The stat of the upstream example of Lora-net/packet_forwarder PROTOCOL.TXT §4. */
export const PROTOCOL_TXT_STAT = {
  time: "2014-01-12 08:59:28 GMT",
  lati: 46.24,
  long: 3.2523,
  alti: 145,
  rxnb: 2,
  rxok: 2,
  rxfw: 2,
  ackr: 100.0,
  dwnb: 2,
  txnb: 2,
};

/** An rxpk every check accepts, for tests to patch one member of. */
export const goodRxpk = {
  tmst: 1000,
  freq: 868.1,
  chan: 0,
  rfch: 0,
  stat: 1,
  modu: "LORA",
  datr: "SF7BW125",
  codr: "4/5",
  rssi: -50,
  lsnr: 9.5,
  size: 4,
  data: "AQIDBA==",
};
