import { CONTENT_FORMAT } from "./codec/content-format.js";
import type { Lwm2mVersion } from "./codec/registration.js";

/** The multi-value formats the server asks for and writes in, best first, for each version the client speaks. */
const PREFERENCE: Record<Lwm2mVersion, readonly number[]> = {
  // 1.0 mandates TLV (OMA-TS-LightweightM2M-V1_0 §6.4); OMA JSON is optional.
  "1.0": [CONTENT_FORMAT.tlv, CONTENT_FORMAT.lwm2mJson],
  // 1.1 clients support SenML JSON or SenML CBOR; TLV remains common (Core V1_1 §7.4).
  "1.1": [CONTENT_FORMAT.senmlJson, CONTENT_FORMAT.senmlCbor, CONTENT_FORMAT.tlv, CONTENT_FORMAT.lwm2mJson],
  // 1.2 adds LwM2M CBOR (Core V1_2 §7.4.6), the most compact of them.
  "1.2": [
    CONTENT_FORMAT.lwm2mCbor,
    CONTENT_FORMAT.senmlCbor,
    CONTENT_FORMAT.senmlJson,
    CONTENT_FORMAT.tlv,
    CONTENT_FORMAT.lwm2mJson,
  ],
};

/**
 * The Content-Format for reads (Accept) and writes to a client: TLV for 1.0, SenML JSON for 1.1, LwM2M CBOR for 1.2,
 * unless the client announced its formats in the registration's `ct` and the first choice is not among them; then
 * the best one it did announce. A client of any version that lists LwM2M CBOR (11544) in `ct` gets LwM2M CBOR. A
 * single resource value that a client will not give in it is read again as plain text (the caller's fallback on
 * 4.06).
 */
export function preferredFormat(version: Lwm2mVersion, announced: readonly number[]): number {
  const order = PREFERENCE[version];
  if (announced.includes(CONTENT_FORMAT.lwm2mCbor)) return CONTENT_FORMAT.lwm2mCbor;
  if (announced.length === 0) return order[0]!;
  return order.find((f) => announced.includes(f)) ?? order[0]!;
}
