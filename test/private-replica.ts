/**
 * A private PostgreSQL primary with a streaming replica, for the read replica tests: the primary made by
 * startPrivatePostgres with `wal_level=replica` and a replication line for loopback in its pg_hba.conf, the replica
 * copied from it with `pg_basebackup -R` (which writes `standby.signal` and `primary_conninfo`) and started as a hot
 * standby on another port. Both run as the `postgres` user when the tests run as root.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./helpers.js";
import { postgresIds, startPrivatePostgres, type PrivatePostgres } from "./private-postgres.js";

/** A primary and its streaming replica. */
export interface ReplicaPair {
  readonly primary: PrivatePostgres;
  readonly replica: PrivatePostgres;
  /** Stops both and deletes their files. */
  destroy(): void;
}

/** Makes the pair; throws with the tool's output when initdb, pg_basebackup or pg_ctl fails. */
export async function startReplicaPair(bin: string): Promise<ReplicaPair> {
  const primary = await startPrivatePostgres(bin, ["wal_level=replica", "max_wal_senders=4"], (data) =>
    appendFileSync(join(data, "pg_hba.conf"), "\nhost replication postgres 127.0.0.1/32 trust\n"),
  );
  let replica: PrivatePostgres;
  try {
    replica = await startReplica(bin, primary);
  } catch (error) {
    primary.destroy();
    throw error;
  }
  return {
    primary,
    replica,
    destroy() {
      try {
        replica.destroy();
      } finally {
        primary.destroy();
      }
    },
  };
}

/** Copies `primary` with pg_basebackup -R into a folder of its own and starts it as a hot standby. */
async function startReplica(bin: string, primary: PrivatePostgres): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "private-pg-replica-"));
  const data = join(dir, "data");
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, ...postgresIds());
  const run = (tool: string, args: string[]) => {
    const [cmd, all] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    execFileSync(cmd, all, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  };
  const from = ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"];
  run("pg_basebackup", [...from, "-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40 -c hot_standby=on -c wal_receiver_status_interval=1`;
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
