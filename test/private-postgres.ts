/**
 * A private PostgreSQL server for the fault tests, which stop, crash and restart it: the machine's shared server
 * (other tests use it) is never touched. Made with the installed server's own initdb and pg_ctl (Debian's
 * postgresql package, /usr/lib/postgresql/<version>/bin) in a temporary folder, on a free port, trust auth on
 * loopback only; run as the `postgres` user when the tests run as root (PostgreSQL refuses to run as root).
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { userInfo } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./helpers.js";

/** A private server: its URL (database `postgres`, user `postgres`) and the means to stop and start it. */
export interface PrivatePostgres {
  readonly url: string;
  readonly port: number;
  /** Its data folder (postgresql.conf, pg_hba.conf). */
  readonly dataDir: string;
  /** `immediate` is a crash (no checkpoint, recovery from WAL at the next start); `fast` a clean shutdown. */
  stop(mode: "immediate" | "fast"): void;
  start(): void;
  /** Stops the server and deletes its files. */
  destroy(): void;
}

/** The bin folder of the newest installed PostgreSQL server, or undefined when none is installed. */
export function postgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "pg_ctl")) && existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], "bin");
}

/** Runs one of the server's tools (as the `postgres` user when the tests run as root), throwing with its output. */
type RunTool = (tool: string, args: string[]) => void;

/**
 * Makes and starts a private server; throws with the tool's output when initdb or pg_ctl fails. `settings` are more
 * `-c name=value` server settings; `beforeStart` is called with the data folder after it is made, to edit its files.
 * `makeData` fills the data folder (default: initdb; a replica's pg_basebackup).
 */
export async function startPrivatePostgres(
  bin: string,
  settings: readonly string[] = [],
  beforeStart?: (dataDir: string) => void,
  makeData: (run: RunTool, dataDir: string) => void = (run, data) =>
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]),
): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "private-pg-"));
  const data = join(dir, "data");
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, ...postgresIds());
  const run: RunTool = (tool, args) => {
    const [cmd, all] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    execFileSync(cmd, all, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  };
  makeData(run, data);
  beforeStart?.(data);
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`,
    ...settings.map((s) => `-c ${s}`),
  ].join(" ");
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "start"]);
  const stop = (mode: "immediate" | "fast") => run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: data,
    stop,
    start,
    destroy() {
      try {
        stop("immediate");
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** uid and gid of the `postgres` user. */
function postgresIds(): [number, number] {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return [uid, gid];
}
