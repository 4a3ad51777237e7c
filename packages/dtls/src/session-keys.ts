import { keyBlock, masterSecret, transcriptHash } from "./prf.js";
import type { CachedSession } from "./session-cache.js";
import type { CipherSuite, RecordProtection } from "./protection.js";

/** The secrets one candidate premaster secret (one per candidate PSK, or the ECDH one) gives a handshake. */
export interface CandidateKeys {
  index: number;
  master: Buffer;
  read: RecordProtection;
  write: RecordProtection;
}

/**
 * The master secret and epoch 1 protections for each candidate key. The extended master secret hashes the handshake
 * up to and including ClientKeyExchange (RFC 7627 §3), which `transcript` holds at this point.
 */
export function candidateKeys(
  premasters: Buffer[],
  suite: CipherSuite,
  transcript: Buffer[],
  randoms: { client: Buffer; server: Buffer },
  extended: boolean,
): CandidateKeys[] {
  const sessionHash = transcriptHash(transcript);
  return premasters.map((premaster, index) => {
    const master = extended
      ? masterSecret(premaster, { extended: true, sessionHash })
      : masterSecret(premaster, { extended: false, clientRandom: randoms.client, serverRandom: randoms.server });
    const keys = keyBlock(master, randoms.client, randoms.server, suite.sizes);
    return { index, master, read: suite.protection(keys.client), write: suite.protection(keys.server) };
  });
}

/** The epoch 1 protections of an abbreviated handshake: the cached master secret with the new randoms (§7.3). */
export function resumedKeys(
  cached: CachedSession,
  suite: CipherSuite,
  randoms: { client: Buffer; server: Buffer },
): CandidateKeys {
  const keys = keyBlock(cached.master, randoms.client, randoms.server, suite.sizes);
  const read = suite.protection(keys.client);
  return { index: cached.keyIndex, master: cached.master, read, write: suite.protection(keys.server) };
}
