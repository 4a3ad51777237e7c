import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

/** Every console address starts with this (the central node serves the console there). */
const BASE = "/console";

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => listeners.forEach((l) => l()));

/** This page load: history entries it pushed carry it with their depth, so Back can tell they are its own. */
const LOAD = Math.random();
const depth = () => {
  const st = history.state as { load?: number; depth?: number } | null;
  return st?.load === LOAD ? (st.depth ?? 0) : 0;
};

/** Goes back when the previous entry is a console page of this load (no reload: the session is kept), else to
 * `fallback`. */
export function back(fallback: string): void {
  if (depth() > 0) history.back();
  else navigate(fallback, true);
}

/** Goes to a console path (`/devices/3`), keeping history. */
export function navigate(path: string, replace = false): void {
  const url = `${BASE}${path}`;
  if (replace) history.replaceState({ load: LOAD, depth: depth() }, "", url);
  else history.pushState({ load: LOAD, depth: depth() + 1 }, "", url);
  listeners.forEach((l) => l());
}

/** The current console path without BASE, and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, set] = useState(0);
  useEffect(() => {
    const l = () => set((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || "/" : "/";
  return { path, query: new URLSearchParams(location.search) };
}

/** Matches `path` against a pattern such as `/devices/:id`; the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const norm = (x: string) => (x.replace(/\/+$/, "") || "/").split("/");
  const p = norm(pattern);
  const s = norm(path);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(":")) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** A link inside the console: a real anchor (open in a new tab works) that navigates without reloading. */
export function Link(props: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={`${BASE}${props.href}`}
      class={props.class}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
