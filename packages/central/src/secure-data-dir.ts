import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { StartupError } from "@iot/config";

/** Mode of the data folder: only the service's own user may list or enter it. */
const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file in it (database, WAL, shared memory, keys): only the service's own user may read it. */
const PRIVATE_FILE_MODE = 0o600;
/** Permission bits that let the file's group or other users in. */
const SHARED_BITS = 0o077;
/** The sticky bit, which marks a folder shared by users (`/tmp`); `fs.constants` lacks it. */
const STICKY_BIT = 0o1000;

/** A path whose mode was tightened at start, with its mode before and after as octal text (`0644`). */
export interface Tightened {
  path: string;
  was: string;
  now: string;
}

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

/** Removes the group and other bits of `path`; answers what changed, nothing when it was private already. */
function tighten(path: string, mode: number): Tightened | undefined {
  if ((mode & SHARED_BITS) === 0) return undefined;
  const now = mode & 0o7777 & ~SHARED_BITS;
  try {
    chmodSync(path, now);
  } catch (err) {
    throw new StartupError(`cannot make ${path} private (mode ${octal(mode)}): ${(err as Error).message}`);
  }
  return { path, was: octal(mode), now: octal(now) };
}

/**
 * Makes the data folder private, because the database in it holds every secret of the service (device tokens, the
 * CA key, the API token secret): creates it 0700 when missing, and removes the group and other bits from it and from
 * every regular file directly in it (0644 becomes 0600) when an earlier run, a copy or an operator left them open.
 * Answers what it tightened, for a warning each.
 * @throws StartupError when the folder cannot be made or tightened, or is a shared one with the sticky bit (`/tmp`),
 *   which must not become private to one user.
 */
export function secureDataDir(dir: string): Tightened[] {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    throw new StartupError(`IOT_DATA_DIR=${dir}: cannot create the folder: ${(err as Error).message}`);
  }
  const dirStat = statSync(path);
  if (!dirStat.isDirectory()) throw new StartupError(`IOT_DATA_DIR=${dir} is not a folder`);
  if (dirStat.mode & STICKY_BIT)
    throw new StartupError(`IOT_DATA_DIR=${dir} is a shared folder (sticky bit, as /tmp): give the service its own`);
  const tightened = [tighten(path, dirStat.mode)];
  for (const name of readdirSync(path)) {
    const file = join(path, name);
    const stat = lstatSync(file);
    if (stat.isFile()) tightened.push(tighten(file, stat.mode));
  }
  return tightened.filter((t) => t !== undefined);
}

/**
 * Creates `file` empty with mode 0600 when it does not exist. For the SQLite database: SQLite gives the `-wal` and
 * `-shm` files it makes the database file's mode, so they are private from their first byte too.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
}
