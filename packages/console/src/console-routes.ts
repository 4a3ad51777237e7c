import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { Hono } from "hono";
import { CONSOLE_DIST } from "./console-build.js";

/** Content types of the files a Vite build writes. */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Headers of every console answer: the page talks only to its own origin (the REST API), is never framed and leaks
 * no referrer. uPlot and Preact set inline styles, hence style-src 'unsafe-inline'; no inline script is allowed.
 */
const SECURITY = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/** Options of the console routes. */
export interface ConsoleOptions {
  /** Record form of the API (`IOT_API_FORM`), written into the page so the console reads records right. */
  form: "1" | "2";
  /** Device listener addresses (`mqttBroker` → `host:port`), written into the page for connection commands. */
  brokers: Record<string, string>;
  /** Folder of the built console (default: this package's dist/). */
  distDir?: string;
}

/** Text safe inside a double-quoted HTML attribute. */
const escapeAttribute = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const notBuilt = `<!doctype html><meta charset="utf-8"><title>Console not built</title>
<p>The console is not built. Run <code>npx --yes pnpm@10.34.8 install</code> (or
<code>pnpm --filter @iot/console build</code>) and reload.</p>`;

/**
 * `GET /console/*`: the built console. Hashed files under assets/ are cached for a year (their names change with
 * their content); any other path that is not a file answers index.html (the client's routes), never cached, with
 * the API form filled in. Paths leaving the build folder answer 404.
 */
export function consoleRoutes(options: ConsoleOptions) {
  const dist = resolve(options.distDir ?? CONSOLE_DIST);
  const index = () => {
    const file = join(dist, "index.html");
    if (!existsSync(file)) return undefined;
    return readFileSync(file, "utf8")
      .replace("%IOT_API_FORM%", options.form)
      .replace("%IOT_BROKERS%", escapeAttribute(JSON.stringify(options.brokers)));
  };
  const page = () => {
    const html = index();
    return new Response(html ?? notBuilt, {
      status: html === undefined ? 503 : 200,
      headers: { "content-type": TYPES[".html"]!, "cache-control": "no-cache", ...SECURITY },
    });
  };
  return new Hono()
    .get("/console", (c) => c.redirect("/console/", 301))
    .get("/console/*", (c) => {
      let rel: string;
      try {
        rel = decodeURIComponent(c.req.path.slice("/console/".length));
      } catch {
        return c.notFound();
      }
      const file = resolve(dist, rel);
      if (file !== dist && !file.startsWith(dist + sep)) return c.notFound();
      const isFile = rel !== "" && !rel.startsWith(".") && existsSync(file) && statSync(file).isFile();
      if (!isFile) {
        // A missing asset is a 404 (a stale page asking for an old hash), not the page.
        if (rel.startsWith("assets/") || extname(rel) !== "") return c.notFound();
        return page();
      }
      if (rel === "index.html") return page();
      const hashed = rel.startsWith("assets/");
      return c.body(readFileSync(file), 200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
        ...SECURITY,
      });
    });
}
