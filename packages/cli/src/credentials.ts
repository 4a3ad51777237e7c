import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** What `iot login` keeps: the API's address and a bearer token. */
export interface Credentials {
  readonly url: string;
  readonly token: string;
}

/** Where credentials live: IOT_CLI_CREDENTIALS, else ~/.config/iot-fleet/credentials.json. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.IOT_CLI_CREDENTIALS || join(homedir(), ".config", "iot-fleet", "credentials.json");
}

/** Saves credentials readable only by the user (file 0600 in a folder made 0700). */
export function saveCredentials(path: string, c: Credentials): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode on write
}

/** The saved credentials, or undefined when there are none (or they are unreadable). */
export function loadCredentials(path: string): Credentials | undefined {
  try {
    const c = JSON.parse(readFileSync(path, "utf8")) as Partial<Credentials>;
    return typeof c.url === "string" && typeof c.token === "string" ? { url: c.url, token: c.token } : undefined;
  } catch {
    return undefined;
  }
}
