/**
 * A private PostgreSQL primary with a streaming replica, for the read replica tests: the primary made by
 * startPrivatePostgres with `wal_level=replica` and a replication line for loopback in its pg_hba.conf, the replica
 * copied from it with `pg_basebackup -R` (which writes `standby.signal` and `primary_conninfo`) and started as a hot
 * standby on another port. Both run as the `postgres` user when the tests run as root.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { startPrivatePostgres, type PrivatePostgres } from "./private-postgres.js";

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
function startReplica(bin: string, primary: PrivatePostgres): Promise<PrivatePostgres> {
  const from = ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"];
  return startPrivatePostgres(bin, ["hot_standby=on", "wal_receiver_status_interval=1"], undefined, (run, data) =>
    run("pg_basebackup", [...from, "-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync"]),
  );
}
