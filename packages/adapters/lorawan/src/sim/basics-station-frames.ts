// How a Basics Station reports a frame it heard (Basics Station docs, "The LNS Protocol": jreq, updf, propdf): the
// PHYPayload taken apart into the message's members, as a station's firmware does before sending it.

/** The EUI form the protocol writes: `01-23-45-67-89-AB-CD-EF`. */
const dashed = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, "0").toUpperCase()).join("-");

/**
 * The members of the uplink message for a PHYPayload: jreq for a JoinRequest (MType 0), updf for data frames (MType 2
 * and 4), propdf for anything else; the radio metadata is added by the caller.
 */
export function stationFrameFields(phy: Buffer): Record<string, unknown> {
  const mtype = phy[0]! >> 5;
  if (mtype === 0 && phy.length === 23)
    return {
      msgtype: "jreq",
      MHdr: phy[0],
      JoinEui: dashed(Buffer.from(phy.subarray(1, 9)).reverse()),
      DevEui: dashed(Buffer.from(phy.subarray(9, 17)).reverse()),
      DevNonce: phy.readUInt16LE(17),
      MIC: phy.readInt32LE(19),
    };
  if ((mtype === 2 || mtype === 4) && phy.length >= 12) {
    const foptsLen = phy[5]! & 0x0f;
    const body = phy.subarray(8 + foptsLen, phy.length - 4);
    return {
      msgtype: "updf",
      MHdr: phy[0],
      DevAddr: phy.readInt32LE(1),
      FCtrl: phy[5],
      FCnt: phy.readUInt16LE(6),
      FOpts: phy.subarray(8, 8 + foptsLen).toString("hex"),
      FPort: body.length > 0 ? body[0] : -1,
      FRMPayload: body.subarray(1).toString("hex"),
      MIC: phy.readInt32LE(phy.length - 4),
    };
  }
  return { msgtype: "propdf", FRMPayload: phy.toString("hex") };
}
