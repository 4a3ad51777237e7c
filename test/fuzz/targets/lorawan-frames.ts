/**
 * Semtech UDP datagrams and the LoRaWAN frames inside them: PUSH_DATA with rxpk/stat JSON whose fields are
 * generated, swapped and replaced, the datagrams' bytes mutated, and PHYPayloads (data up, join request, join accept,
 * CFList, MAC commands) built with lora-packet and mutated. Every decoder promises a result, never a throw.
 */
import fc from "fast-check";
import {
  decodeCfList,
  decodeDownlinkMacCommands,
  decodeJoinAccept,
  decodeSemtechPacket,
  decodeTxPacket,
  decodeUplinkMacCommands,
  parseDataFrame,
  parseJoinRequest,
  regionByName,
  uplinkDataRate,
  verifyJoinRequest,
  verifyUplink,
  type Region,
  type UplinkSession,
} from "@iot/adapter-lorawan";
import { loraPacket } from "../../../packages/adapters/lorawan/src/codec/lora-packet.js";
import { expectResult, mutatedBytes, mutatedFields, type FuzzTarget } from "../harness.js";

const hex = (s: string) => Buffer.from(s, "hex");
const NWK = hex("44024241ed4ce9a68c6a8bc055233fd3");
const APP = hex("ec925802ae430ca77fd3dd73cb2cc588");
const APP_KEY = hex("a1b2c3d4e5f60718293a4b5c6d7e8f90");
const ADDR = "26011bda";
const SESSIONS: UplinkSession[] = [0, 1, 2, 3].map((fcntCheck) => ({
  devAddr: ADDR,
  nwkSKey: NWK,
  appSKey: APP,
  fcntUp: 5,
  fcntCheck: fcntCheck as UplinkSession["fcntCheck"],
}));

/** A data uplink as a device builds it, MIC correct. */
const dataUp = fc
  .record({
    fcnt: fc.integer({ min: 0, max: 0x1_0000_ffff }),
    fPort: fc.integer({ min: 0, max: 255 }),
    confirmed: fc.boolean(),
    payload: fc.uint8Array({ maxLength: 48 }),
    fOpts: fc.constantFrom("", "02", "0307", "06"),
  })
  .map((o) => {
    const msb = Buffer.from([(o.fcnt >>> 16) & 0xff, (o.fcnt >>> 24) & 0xff]);
    const packet = loraPacket.fromFields(
      {
        MType: o.confirmed ? "Confirmed Data Up" : "Unconfirmed Data Up",
        DevAddr: hex(ADDR),
        FCnt: Buffer.from([(o.fcnt >> 8) & 0xff, o.fcnt & 0xff]),
        FOpts: hex(o.fOpts),
        FPort: o.fPort,
        payload: Buffer.from(o.payload),
      },
      APP,
      NWK,
      undefined,
      msb,
    );
    loraPacket.recalculateMIC(packet, NWK, undefined, msb);
    return new Uint8Array(packet.getPHYPayload()!);
  });

const joinRequest = fc
  .tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ minLength: 2, maxLength: 2 }))
  .map(([devEui, nonce]) => {
    const fields = { MType: "Join Request", AppEUI: hex("70b3d57ed0000001"), DevEUI: Buffer.from(devEui) };
    const request = loraPacket.fromFields({ ...fields, DevNonce: Buffer.from(nonce) }, undefined, undefined, APP_KEY);
    return new Uint8Array(request.getPHYPayload()!);
  });

const phy = mutatedBytes(fc.oneof({ weight: 3, arbitrary: dataUp }, { weight: 1, arbitrary: joinRequest }));

const rxpk = fc.record({
  tmst: fc.nat(),
  freq: fc.constantFrom(868.1, 868.3, 902.3, 470.3),
  chan: fc.nat(7),
  rfch: fc.nat(1),
  stat: fc.constantFrom(1, 0, -1),
  modu: fc.constantFrom("LORA", "FSK"),
  datr: fc.constantFrom("SF7BW125", "SF12BW125", "SF8BW500", 50000),
  codr: fc.constantFrom("4/5", "4/6"),
  rssi: fc.integer({ min: -140, max: 0 }),
  lsnr: fc.double({ min: -20, max: 15, noNaN: true }),
});

/** A PUSH_DATA datagram: header, gateway EUI, JSON with rxpks carrying (mutated) PHYPayloads and a stat. */
const pushData = fc
  .tuple(
    fc.constantFrom(1, 2),
    fc.nat(0xffff),
    fc.array(
      fc.tuple(mutatedFields(rxpk), phy).map(([r, data]) => ({
        ...r,
        size: data.length,
        data: Buffer.from(data).toString("base64"),
      })),
      { maxLength: 3 },
    ),
    mutatedFields(fc.record({ rxnb: fc.nat(9), rxok: fc.nat(9), ackr: fc.double({ min: 0, max: 100, noNaN: true }) })),
  )
  .map(([version, token, rxpks, stat]) =>
    Buffer.concat([
      Buffer.from([version, token >> 8, token & 0xff, 0x00]),
      hex("0102030405060708"),
      Buffer.from(JSON.stringify({ rxpk: rxpks, stat })),
    ]),
  )
  .map((b) => new Uint8Array(b));

type Case = { kind: "datagram"; bytes: Uint8Array } | { kind: "phy"; bytes: Uint8Array };

const cases: fc.Arbitrary<Case> = fc.oneof(
  mutatedBytes(pushData).map((bytes) => ({ kind: "datagram" as const, bytes })),
  phy.map((bytes) => ({ kind: "phy" as const, bytes })),
);

const REGIONS: Region[] = ["EU868", "US915", "CN470"].map((name) => {
  const r = regionByName(name);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
});

function frame(bytes: Uint8Array): void {
  expectResult("parseDataFrame", () => parseDataFrame(bytes));
  expectResult("verifyUplink", () => verifyUplink(bytes, () => SESSIONS));
  expectResult("parseJoinRequest", () => parseJoinRequest(bytes));
  expectResult("verifyJoinRequest", () => verifyJoinRequest(bytes, APP_KEY));
  expectResult("decodeJoinAccept", () => decodeJoinAccept(bytes, APP_KEY));
  expectResult("decodeCfList", () => decodeCfList(bytes.subarray(0, 16)));
  decodeUplinkMacCommands(bytes.subarray(0, 15));
  decodeDownlinkMacCommands(bytes.subarray(0, 15));
}

function run(c: Case): void {
  if (c.kind === "phy") return frame(c.bytes);
  expectResult("decodeSemtechPacket", () => decodeSemtechPacket(c.bytes));
  const p = decodeSemtechPacket(c.bytes);
  if (!p.ok || p.value.type !== "PUSH_DATA") return;
  for (const rx of p.value.rxpk) {
    for (const region of REGIONS) expectResult("uplinkDataRate", () => uplinkDataRate(region, rx));
    frame(rx.data);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(c.bytes.subarray(12)).toString());
  } catch {
    return;
  }
  expectResult("decodeTxPacket", () => decodeTxPacket((json as { rxpk?: unknown[] })?.rxpk?.[0]));
}

/** The Semtech UDP / LoRaWAN frame target: pure decoders, no session. */
export const lorawanFrames: FuzzTarget<Case> = {
  name: "lorawan-frames",
  description: "Semtech UDP datagrams and LoRaWAN frames (data, join, CFList, MAC) refuse, never throw",
  start: async () => ({ arbitrary: cases, run, stop: async () => {} }),
};
