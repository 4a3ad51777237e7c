import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The console package's folder. */
const packageDir = fileURLToPath(new URL("..", import.meta.url));
/** Where `vite build` writes the console: the folder the central node serves at /console. */
export const CONSOLE_DIST = join(packageDir, "dist");
/** Written last by a build: the fingerprint of the sources it was built from. */
const STAMP = ".build-stamp";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** SHA-256 over every source of the build (the app, the Vite config, the package manifest), by path and content. */
function sourceFingerprint(): string {
  const hash = createHash("sha256");
  const files = [
    ...filesUnder(join(packageDir, "app")),
    join(packageDir, "vite.config.ts"),
    join(packageDir, "package.json"),
  ];
  for (const file of files.sort()) {
    hash.update(relative(packageDir, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

/** Whether dist/ holds a complete build of the current sources (a build that stopped midway has no stamp). */
export function consoleBuildIsCurrent(): boolean {
  const stamp = join(CONSOLE_DIST, STAMP);
  return existsSync(stamp) && readFileSync(stamp, "utf8") === sourceFingerprint();
}

/**
 * Builds the console with Vite unless dist/ already holds a build of the current sources; true when it built. Run by
 * `pnpm install` (the package's postinstall) and again by `pnpm start`, so sources changed since install are served.
 */
export async function ensureConsoleBuilt(): Promise<boolean> {
  if (consoleBuildIsCurrent()) return false;
  const fingerprint = sourceFingerprint();
  const { build } = await import("vite");
  await build({ configFile: join(packageDir, "vite.config.ts") });
  writeFileSync(join(CONSOLE_DIST, STAMP), fingerprint);
  return true;
}
