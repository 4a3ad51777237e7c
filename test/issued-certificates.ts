import { writeFileSync } from "node:fs";
import { expect } from "vitest";
import type { TestFleet } from "./helpers.js";

/** A certificate `/certs` issued: its id, CN and the PEMs of the certificate, its key and the service CA. */
export interface IssuedCertificate {
  id: number;
  CN: string;
  cert: string;
  key: string;
  root: string;
}

/** Issues a certificate through REST (`POST /certs`), enabled unless `enable` is 0. */
export async function issueCertificate(t: TestFleet, name: string, enable = 1): Promise<IssuedCertificate> {
  const r = await t.api("POST", "/certs", { name, enable });
  expect(r.status).toBe(201);
  return {
    id: r.body.id,
    CN: r.body.CN,
    cert: r.body.cert.content,
    key: r.body.key.content,
    root: r.body.root.content,
  };
}

/** Writes the certificate's PEM files under `base` (`.crt`, `.key`, `.ca`); answers their paths. */
export function certificateFiles(
  base: string,
  c: Pick<IssuedCertificate, "cert" | "key" | "root">,
): { cert: string; key: string; ca: string } {
  writeFileSync(`${base}.crt`, c.cert);
  writeFileSync(`${base}.key`, c.key);
  writeFileSync(`${base}.ca`, c.root);
  return { cert: `${base}.crt`, key: `${base}.key`, ca: `${base}.ca` };
}
