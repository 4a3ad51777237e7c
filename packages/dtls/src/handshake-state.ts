import { randomBytes } from "node:crypto";
import type { CertificateExchange } from "./certificate-exchange.js";
import type { RecordChannel } from "./channel.js";
import { decodeFragments, type HandshakeMessage, HandshakeType, Reassembler } from "./handshake.js";
import { decodeFinished } from "./messages.js";
import { transcriptHash, verifyData } from "./prf.js";
import type { CipherSuite } from "./protection.js";
import { ContentType, type DtlsRecord } from "./record.js";
import type { CachedSession } from "./session-cache.js";
import { type CandidateKeys, candidateKeys } from "./session-keys.js";

/**
 * What a server session needs while it handshakes and not after: the transcript, the randoms, the candidate keys, the
 * certificate exchange (its ephemeral ECDH key and the client's chain), a resumed session's cached secrets, the
 * reassembly buffer and the deadline timer. {@link ServerSession} drops the whole object when the handshake ends, so
 * an idle established session keeps only its record state and identity.
 */
export class HandshakeState {
  readonly transcript: Buffer[] = [];
  readonly reassembler = new Reassembler();
  readonly serverRandom = randomBytes(32);
  candidates: CandidateKeys[] = [];
  exchange: CertificateExchange | undefined;
  resumed: CachedSession | undefined;
  cancelDeadline: () => void = () => {};

  constructor(
    readonly clientRandom: Buffer,
    readonly extendedMasterSecret: boolean,
  ) {}

  get randoms(): { client: Buffer; server: Buffer } {
    return { client: this.clientRandom, server: this.serverRandom };
  }

  /** The candidate keys from the premaster secrets (one per candidate PSK, or the ECDH one). */
  takePremasters(premasters: Buffer[], suite: CipherSuite): void {
    this.candidates = candidateKeys(premasters, suite, this.transcript, this.randoms, this.extendedMasterSecret);
  }

  /** Whether a Finished body carries the client's verify_data for this candidate's master secret. */
  verifiesFinished(candidate: CandidateKeys, body: Buffer): boolean {
    const verify = decodeFinished(body);
    return verify.ok && verify.value.equals(verifyData(candidate.master, "client", transcriptHash(this.transcript)));
  }

  /** The candidate whose keys open the epoch 1 record and whose master secret its Finished (number `seq`) verifies. */
  verifyClientFinished(
    record: DtlsRecord,
    channel: RecordChannel,
    seq: number,
  ): { candidate: CandidateKeys; message: HandshakeMessage } | undefined {
    for (const candidate of this.candidates) {
      const opened = channel.open(record, candidate.read);
      if (!opened.ok || opened.value.type !== ContentType.handshake) continue;
      const fragments = decodeFragments(opened.value.plaintext);
      const f = fragments.ok ? fragments.value[0] : undefined;
      if (!f || f.msgType !== HandshakeType.finished || f.messageSeq !== seq) continue;
      if (!this.verifiesFinished(candidate, f.body)) continue;
      return { candidate, message: { msgType: f.msgType, messageSeq: f.messageSeq, body: Buffer.from(f.body) } };
    }
    return undefined;
  }
}
