/** A failed API call: the spec's error body (`errorCode`, `message`, `errors` naming fields) and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    /** Field name → message, shown beside the form field of that name. */
    readonly errors: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A list answer of the API (`{items, meta}`). */
export interface Page<T> {
  items: T[];
  meta: { count: number; limit: number; page: number };
}

/** Any record of the API: the console reads fields by name and shows what it gets. */
export type Rec = Record<string, any>;

let token: string | null = null;
let user: Rec | null = null;
const listeners = new Set<() => void>();

/**
 * The bearer token lives in this module's memory only: no storage, no cookie, so no other tab, script-readable
 * storage or cross-site request carries it (nothing for CSRF to ride on); a reload or a new tab asks to log in again.
 */
export const session = {
  get token() {
    return token;
  },
  set(value: string | null, who?: Rec) {
    token = value;
    user = value ? (who ?? user) : null;
    for (const l of listeners) l();
  },
  get user(): Rec | null {
    return user;
  },
  onChange(l: () => void) {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

/** Query string of defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/**
 * Calls `/api/v1<path>` with the bearer token. JSON bodies are sent as JSON, FormData and strings as they are.
 * A 401 ends the session (the token expired); any other error answer throws an ApiError.
 */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", "accept-language": navigator.language };
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData || typeof body === "string") payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`/api/v1${path}`, { method, headers, body: payload ?? null });
  const text = await res.text();
  let data: any;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    if (res.status === 401 && token && path !== "/login") session.set(null);
    const e = (data ?? {}) as Rec;
    throw new ApiError(res.status, e.errorCode ?? `HTTP_${res.status}`, e.message ?? res.statusText, e.errors ?? {});
  }
  return data as T;
}

/** Downloads `/api/v1<path>` with the token and hands it to the browser as a file named `name`. */
export async function download(path: string, name: string): Promise<void> {
  const res = await fetch(`/api/v1${path}`, { headers: { authorization: `Bearer ${token ?? ""}` } });
  if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, res.statusText);
  saveBlob(await res.blob(), name);
}

/** Offers `blob` as a download named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
