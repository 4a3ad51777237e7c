/**
 * The thread of WalCheckpointThread (plain JavaScript, so the thread needs no TypeScript loader): its own connection
 * to the database copies the WAL's committed pages into the database file (`wal_checkpoint(PASSIVE)`: it never waits
 * for, nor blocks, the main thread's writes) when asked, and once a second when not, and answers what it did.
 */
import { clearInterval, setInterval } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";

const db = new BetterSqlite3(workerData.file, { fileMustExist: true });
const checkpoint = () => {
  try {
    const [row] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ type: "checkpointed", log: row.log });
  } catch (err) {
    parentPort.postMessage({ type: "error", message: err.message });
  }
};
const timer = setInterval(checkpoint, workerData.idleMs);
parentPort.on("message", (m) => {
  if (m === "checkpoint") return checkpoint();
  clearInterval(timer);
  db.close();
  parentPort.close();
});
