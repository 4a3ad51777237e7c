import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, type Rec } from "./api.ts";
import { t } from "./i18n.ts";

/** What a loader gives a page: its data, an error, and a way to load again. */
export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  reload: () => void;
  /** Changes the data in place (a live event applied without loading again). */
  set: (update: (d: T | undefined) => T | undefined) => void;
}

/** Runs `load` now and whenever `deps` change; `reload` runs it again (polling pages call it on a timer). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(undefined)),
      (e: unknown) => live && setError(e instanceof Error ? e : new Error(String(e))),
    );
    return () => void (live = false);
  }, [...deps, n]);
  return { data, error, reload: useCallback(() => setN((x) => x + 1), []), set: setData };
}

/** Calls `fn` every `ms` milliseconds while the component is shown; never when `ms` is 0. */
export function useInterval(fn: () => void, ms: number): void {
  useEffect(() => {
    if (ms <= 0) return;
    const id = setInterval(fn, ms);
    return () => clearInterval(id);
  }, [fn, ms]);
}

/** An error line (the API's message and code). */
export function ErrorBox({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const code = error instanceof ApiError ? ` (${error.errorCode})` : "";
  return (
    <p class="error" role="alert">
      {error.message}
      {code}
    </p>
  );
}

/** A column of a Table: its header, how a record shows in it, and the `_sort` field when it sorts. */
export interface Column {
  label: string;
  cell: (r: Rec) => ComponentChildren;
  sort?: string;
}

/** A table of records; sortable headers call `onSort` with their field. */
export function Table(props: {
  rows: Rec[] | undefined;
  columns: Column[];
  sort?: { field: string; order: "asc" | "desc" };
  onSort?: (field: string) => void;
  testId?: string;
}) {
  if (!props.rows) return <p class="muted">{t("loading")}</p>;
  if (props.rows.length === 0) return <p class="muted">{t("nothing")}</p>;
  return (
    <table data-testid={props.testId}>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c.label}>
              {c.sort && props.onSort ? (
                <button class="link" onClick={() => props.onSort!(c.sort!)} title={t("sortBy")}>
                  {c.label}
                  {props.sort?.field === c.sort ? (props.sort.order === "asc" ? " ▲" : " ▼") : ""}
                </button>
              ) : (
                c.label
              )}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r, i) => (
          <tr key={r.id ?? i}>
            {props.columns.map((c) => (
              <td key={c.label}>{c.cell(r)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Previous / next over a list's meta. */
export function Pager(props: { meta?: { count: number; limit: number; page: number }; onPage: (p: number) => void }) {
  const m = props.meta;
  if (!m) return null;
  const pages = Math.max(1, Math.ceil(m.count / m.limit));
  return (
    <div class="pager">
      <button disabled={m.page <= 1} onClick={() => props.onPage(m.page - 1)}>
        {t("prev")}
      </button>
      <span>{t("pageOf", { page: m.page, pages, count: m.count })}</span>
      <button disabled={m.page >= pages} onClick={() => props.onPage(m.page + 1)}>
        {t("next")}
      </button>
    </div>
  );
}

/** A labelled form field with the API's error for `name` beside it. */
export function Field(props: {
  label: string;
  name: string;
  errors: Record<string, string>;
  children: ComponentChildren;
}) {
  const err = props.errors[props.name];
  return (
    <label class={err ? "field invalid" : "field"}>
      <span>{props.label}</span>
      {props.children}
      {err ? (
        <small class="field-error" data-field-error={props.name}>
          {err}
        </small>
      ) : null}
    </label>
  );
}

/** A button copying `text` to the clipboard (with a fallback where the Clipboard API is missing). */
export function CopyButton({ text, name }: { text: string; name: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return (
    <button class="small" data-copy={name} onClick={() => void copy()}>
      {done ? t("copied") : t("copy")}
    </button>
  );
}

/** A coloured online/offline badge. */
export function StatusBadge({ code, label }: { code: number; label: string }) {
  const cls = code === 1 ? "badge on" : code === 2 ? "badge sleep" : "badge off";
  return (
    <span class={cls} data-status={code}>
      {label || (code === 1 ? t("online") : t("offline"))}
    </span>
  );
}

/** A titled block of a page. */
export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header>
        <h2>{props.title}</h2>
        <div class="actions">{props.actions}</div>
      </header>
      {props.children}
    </section>
  );
}

/** Field errors of a failed form submit (the API's `errors`), or a single `_form` message. */
export function errorsOf(e: unknown): Record<string, string> {
  if (e instanceof ApiError) {
    return Object.keys(e.errors).length > 0 ? e.errors : { _form: `${e.message} (${e.errorCode})` };
  }
  return { _form: e instanceof Error ? e.message : String(e) };
}
