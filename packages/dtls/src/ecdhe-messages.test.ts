import { describe, expect, test } from "vitest";
import {
  decodeCertificate,
  decodeCertificateRequest,
  decodeCertificateVerify,
  decodeEcdhClientKeyExchange,
  decodeEcdheServerKeyExchange,
  decodePointFormats,
  decodeU16List,
  ECDSA_SHA256,
  encodeCertificate,
  encodeCertificateRequest,
  encodeCertificateVerify,
  encodeEcdhClientKeyExchange,
  encodeEcdheServerKeyExchange,
  encodePointFormats,
  encodeU16List,
  SECP256R1,
} from "./ecdhe-messages.js";

const point = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 9)]);
const signature = Buffer.alloc(71, 5);

describe("ECDHE_ECDSA messages", () => {
  test("each decodes what its encoder wrote", () => {
    const chain = [Buffer.alloc(300, 1), Buffer.alloc(200, 2)];
    expect(decodeCertificate(encodeCertificate(chain))).toEqual({ ok: true, value: chain });
    expect(decodeCertificate(encodeCertificate([]))).toEqual({ ok: true, value: [] });
    const signed = { algorithm: ECDSA_SHA256, signature };
    expect(decodeEcdheServerKeyExchange(encodeEcdheServerKeyExchange(point, signed))).toEqual({
      ok: true,
      value: { point, ...signed },
    });
    expect(decodeCertificateVerify(encodeCertificateVerify(signed))).toEqual({ ok: true, value: signed });
    expect(decodeEcdhClientKeyExchange(encodeEcdhClientKeyExchange(point))).toEqual({ ok: true, value: point });
    expect(decodeCertificateRequest(encodeCertificateRequest())).toEqual({
      ok: true,
      value: { types: [64], algorithms: [ECDSA_SHA256] },
    });
    expect(decodeU16List(encodeU16List([SECP256R1, 29]))).toEqual({ ok: true, value: [SECP256R1, 29] });
    expect(decodePointFormats(encodePointFormats([0]))).toEqual({ ok: true, value: [0] });
  });

  test("the ServerKeyExchange is secp256r1 named_curve with the point and signature after it", () => {
    const body = encodeEcdheServerKeyExchange(point, { algorithm: ECDSA_SHA256, signature });
    expect(body.subarray(0, 5).toString("hex")).toBe("03001741" + "04");
    expect(body.subarray(69, 73).toString("hex")).toBe("04030047");
  });

  test("a compressed or short point, an empty certificate entry and trailing bytes are refused", () => {
    const compressed = Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 1)]);
    expect(decodeEcdhClientKeyExchange(encodeEcdhClientKeyExchange(compressed)).ok).toBe(false);
    expect(decodeCertificate(Buffer.from("000003000000", "hex")).ok).toBe(false);
    expect(
      decodeCertificateVerify(Buffer.concat([encodeCertificateVerify({ algorithm: 1, signature }), Buffer.from([0])]))
        .ok,
    ).toBe(false);
    expect(decodeCertificate(Buffer.from("00ffff", "hex")).ok).toBe(false);
  });

  test("more than eight certificates in a chain are refused", () => {
    expect(decodeCertificate(encodeCertificate(Array.from({ length: 9 }, () => Buffer.alloc(10)))).ok).toBe(false);
  });

  test("every truncation of every message is refused without a throw", () => {
    const bodies = [
      encodeCertificate([Buffer.alloc(40, 1)]),
      encodeEcdheServerKeyExchange(point, { algorithm: ECDSA_SHA256, signature }),
      encodeCertificateVerify({ algorithm: ECDSA_SHA256, signature }),
      encodeEcdhClientKeyExchange(point),
      encodeCertificateRequest(),
    ];
    const decoders = [
      decodeCertificate,
      decodeEcdheServerKeyExchange,
      decodeCertificateVerify,
      decodeEcdhClientKeyExchange,
      decodeCertificateRequest,
      decodeU16List,
      decodePointFormats,
    ];
    for (const body of bodies) {
      for (let n = 0; n < body.length; n++) {
        for (const decode of decoders) expect(() => decode(body.subarray(0, n))).not.toThrow();
      }
    }
    for (let n = 0; n < bodies[0]!.length; n++) expect(decodeCertificate(bodies[0]!.subarray(0, n)).ok).toBe(false);
  });
});
