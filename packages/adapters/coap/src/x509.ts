/**
 * @peculiar/x509 ready to use: import it from here, not from the package. Its version 2 resolves its parts with
 * tsyringe, which throws on load unless the Reflect metadata API is there: the polyfill is imported first.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export * from "@peculiar/x509";
