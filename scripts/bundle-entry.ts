/**
 * One JavaScript file per process entry point, so fleet processes start without tsx: loading our ~470 TypeScript
 * files through tsx's loader hooks cost the central node about 2.4 s of its 4.8 s of CPU to start on the CI machine.
 * esbuild bundles the workspace's own sources (for this Node's target) into node_modules/.cache/fleet-bundles/;
 * third-party packages stay external, imported by the absolute path esbuild resolves from the importing source (what
 * Node resolves there), so pnpm's strict layout and native modules work.
 * A manifest lists every file the bundle was built from with its stat, with the package.json and tsconfig.json files
 * above them; any change to one, to the lockfile or this builder, rebuilds it before the process starts, so a process
 * never runs stale code.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, extname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Loader, type Plugin } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Where bundles, their source maps and manifests are kept (one worktree's; `pnpm install` does not clear it). */
export const BUNDLE_DIR = join(root, "node_modules", ".cache", "fleet-bundles");
/** Files outside the bundle's inputs whose change can change it: dependency versions, shared compiler options. */
const SETTINGS = ["pnpm-lock.yaml", "node_modules/.modules.yaml", "tsconfig.base.json"];
/** This builder as it was loaded (an older copy still running elsewhere must not vouch for the newer file). */
const BUILDER = relative(root, fileURLToPath(import.meta.url));
const BUILDER_KEY = currentKey(BUILDER);
/** Bundles no manifest names any more are removed once this old (ms): a process may still be starting from one. */
const PRUNE_AFTER_MS = 10 * 60_000;
const LOADERS: Record<string, Loader> = { ".ts": "ts", ".mts": "ts", ".js": "js", ".mjs": "js", ".json": "json" };

interface Manifest {
  /** The Node version it targets (tsx compiles for the running Node). */
  node: string;
  /** The bundle's file name in BUNDLE_DIR (named by its content hash, never rewritten). */
  bundle: string;
  /** Path (from the root) → stat key of every file the bundle depends on, as read for the build. */
  inputs: Record<string, string>;
}

/** What identifies one version of a file without reading it: any write changes mtime or ctime (ns). */
function statKey(s: { mtimeNs: bigint; ctimeNs: bigint; size: bigint; ino: bigint }): string {
  return `${s.mtimeNs}:${s.ctimeNs}:${s.size}:${s.ino}`;
}

function currentKey(path: string): string | undefined {
  try {
    return statKey(statSync(join(root, path), { bigint: true }));
  } catch {
    return undefined;
  }
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/** Whether the manifest's bundle was built from the files as they are now, and is still there. */
function isCurrent(m: Manifest | undefined): m is Manifest {
  if (!m || m.node !== process.version) return false;
  for (const [path, key] of Object.entries(m.inputs)) if (currentKey(path) !== key) return false;
  return currentKey(relative(root, join(BUNDLE_DIR, m.bundle))) !== undefined;
}

/** Writes a file whole or not at all, so a concurrent reader never sees it half written. */
function writeAtomically(file: string, contents: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/**
 * Reads the workspace's sources itself: records each file's stat taken before reading it (a later write changes the
 * stat, so the manifest never vouches for content the bundle lacks), and gives each module its own location where it
 * asks for it (`import.meta.url`, `.dirname`, `.filename`), so files found relative to a module are still found.
 * Bare imports that resolve into node_modules stay external, by absolute URL.
 */
function sourcesPlugin(inputs: Map<string, string>): Plugin {
  const seen = new Set<string>();
  /** The package.json (exports, type) and tsconfig.json (compiler options) of `dir` and every folder above it. */
  const recordConfigs = (dir: string) => {
    for (let d = dir; d.startsWith(root) && !seen.has(d); d = dirname(d)) {
      seen.add(d);
      for (const name of ["package.json", "tsconfig.json"]) {
        const path = relative(root, join(d, name));
        const key = currentKey(path);
        if (key) inputs.set(path, key);
      }
    }
  };
  return {
    name: "fleet-sources",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "inner" || isBuiltin(args.path)) return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "inner",
        });
        if (r.errors.length > 0) return { errors: r.errors };
        if (r.external || !r.path.includes("/node_modules/")) return r;
        return { path: pathToFileURL(r.path).href, external: true };
      });
      b.onLoad({ filter: /\.(m?ts|m?js|json)$/ }, async (args) => {
        const s = await stat(args.path, { bigint: true });
        let contents = await readFile(args.path, "utf8");
        inputs.set(relative(root, args.path), statKey(s));
        recordConfigs(dirname(args.path));
        if (contents.includes("import.meta")) {
          const url = pathToFileURL(args.path).href;
          contents = contents
            .replace(/\bimport\.meta\.url\b/g, JSON.stringify(url))
            .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
            .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
        }
        return { contents, loader: LOADERS[extname(args.path)] ?? "js" };
      });
    },
  };
}

/** Removes files of this entry's earlier bundles that no manifest names and no process can still be starting from. */
function prune(slug: string, keep: string): void {
  for (const name of readdirSync(BUNDLE_DIR)) {
    if (!name.startsWith(`${slug}-`) || name.startsWith(keep)) continue;
    const file = join(BUNDLE_DIR, name);
    try {
      if (Date.now() - statSync(file).mtimeMs > PRUNE_AFTER_MS) unlinkSync(file);
    } catch {
      // another process pruned it first
    }
  }
}

async function buildBundle(entry: string, slug: string, manifestFile: string): Promise<Manifest> {
  const inputs = new Map<string, string>();
  for (const path of SETTINGS) inputs.set(path, currentKey(path) ?? "missing");
  inputs.set(BUILDER, BUILDER_KEY ?? "missing");
  const result = await build({
    entryPoints: { [slug]: join(root, entry) },
    entryNames: "[name]-[hash]",
    outdir: BUNDLE_DIR,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    // Without keepNames (which tsx sets): it wraps every function and class esbuild emits in a `__name` call that
    // defines its `name` property when it is created, so each closure made per connection or per message carried a
    // 256-byte property store (about 1.8 KB of every held MQTT connection) and a defineProperty call. Only names that
    // collide between modules come out renamed (`decodeOne2`); error classes set their `name` themselves.
    keepNames: false,
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "silent",
    plugins: [sourcesPlugin(inputs)],
  });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // The map first: the bundle names it, and a bundle's name is its content's hash, so an existing one is complete.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(b.path.endsWith(".map")) - Number(a.path.endsWith(".map")),
  );
  for (const f of files) writeAtomically(f.path, f.contents);
  const bundle = relative(BUNDLE_DIR, files.find((f) => f.path.endsWith(".mjs"))!.path);
  const manifest: Manifest = { node: process.version, bundle, inputs: Object.fromEntries([...inputs].sort()) };
  writeAtomically(manifestFile, JSON.stringify(manifest, null, 1));
  prune(slug, bundle);
  return manifest;
}

/**
 * The absolute path of an up-to-date bundle of `entry` (a TypeScript entry point, from the repository root), built
 * first if it is missing or any file it came from changed since. Run it with `node --enable-source-maps <path>` so
 * stack traces name the TypeScript sources. Safe to call from several processes at once.
 */
export async function bundleEntry(entry: string): Promise<string> {
  const slug = entry.replace(/\.[cm]?ts$/, "").replace(/[^\w.-]+/g, "+");
  const manifestFile = join(BUNDLE_DIR, `${slug}.json`);
  let manifest = readManifest(manifestFile);
  if (!isCurrent(manifest)) manifest = await buildBundle(entry, slug, manifestFile);
  return join(BUNDLE_DIR, manifest.bundle);
}
