/**
 * Our DTLS server for bench/dtls-handshakes.ts, in a process of its own as OpenSSL's s_server is: a DtlsServer on a
 * loopback UDP port with the PSK suites (`psk <hex key>`) or the certificate suites (`ecdhe <cert> <key> <ca>`,
 * client certificates checked against the CA), answering data with nothing. Prints `port <n>` once it listens.
 */
import { createSocket } from "node:dgram";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { DtlsServer, type DtlsServerOptions } from "../packages/dtls/src/index.js";

const [kind, ...args] = process.argv.slice(2);
const socket = createSocket("udp4");
const common = { onData: () => {}, maxHandshakes: 10_000, sessionCache: false as const };
let options: DtlsServerOptions;
if (kind === "psk") {
  const key = Buffer.from(args[0]!, "hex");
  options = { ...common, lookupPsk: () => Promise.resolve([key]) };
} else {
  const [certFile, keyFile, caFile] = args;
  const ca = new X509Certificate(readFileSync(caFile!));
  options = {
    ...common,
    certificate: { chain: readFileSync(certFile!, "utf8"), key: readFileSync(keyFile!, "utf8") },
    checkClientCertificate: (chain) => {
      const leaf = new X509Certificate(chain[0]!);
      return Promise.resolve(leaf.verify(ca.publicKey) ? { identity: Buffer.from(leaf.subject) } : undefined);
    },
  };
}
new DtlsServer(socket, options);
socket.bind(0, "127.0.0.1", () => console.log(`port ${socket.address().port}`));
