import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "./api.ts";
import type { Option, OptionsFrom } from "./form.tsx";
import { t } from "./i18n.ts";
import { useLive, useLiveState, type LiveEvent } from "./live.ts";
import { useListState } from "./list-state.ts";
import { Link } from "./router.tsx";
import { ErrorBox, Pager, Table, useInterval, useLoad, type Column } from "./ui.tsx";

/** A filter of a list page: a search box (`<field>_like` filters) or a select of fixed or loaded options. */
interface Filter {
  name: string;
  label: string;
  kind?: "search" | "select";
  options?: Option[];
  optionsFrom?: OptionsFrom & { path: string };
}

/** What a list page shows: the list endpoint, its columns, filters and the actions on its rows. */
export interface ListSpec {
  title: string;
  /** The API's list path (`/products`). */
  api: string;
  columns: Column[];
  filters?: Filter[];
  /** Default filters (the URL's query overrides them). */
  initialFilters?: Record<string, string>;
  /** Console path of the create form, and its button's label. */
  newHref?: string;
  newLabel?: string;
  /** Console path of a row's edit form; an Edit button per row when set. */
  editHref?: (r: Rec) => string;
  /** Deletes go to `DELETE <api>?ids=<id>` (a Delete button per row) when true. */
  deletable?: boolean;
  /** More buttons of a row. */
  actions?: (r: Rec, reload: () => void) => ComponentChildren;
  /** Reload every `refreshMs` (lists whose rows change by themselves; only without a stream when `liveTypes`)… */
  refreshMs?: number;
  /** …and on the live events of these types. */
  liveTypes?: LiveEvent["type"][];
  testId: string;
  /** Shown as a section of another page: a smaller title and no search boxes. */
  embedded?: boolean;
  /** Changes when the page holding an embedded list wants it loaded again (a record added beside it). */
  version?: number;
  /** Told after a row is deleted (the page may read other things again). */
  onChange?: () => void;
}

/** Loads the records behind a select filter's options. */
function FilterSelect({ f, value, set }: { f: Filter; value: string; set: (v: string) => void }) {
  const from = f.optionsFrom;
  const { data } = useLoad(
    () => (from ? api<Page<Rec>>("GET", from.path).then((r) => r.items) : Promise.resolve([])),
    [from?.path],
  );
  const options: Option[] =
    f.options ??
    (data ?? []).map((r) => [
      r[from!.value] as string,
      typeof from!.label === "function" ? from!.label(r) : String(r[from!.label]),
    ]);
  return (
    <select name={f.name} value={value} onChange={(e) => set(e.currentTarget.value)}>
      <option value="">
        {f.label}: {t("all")}
      </option>
      {options.map(([v, label]) => (
        <option key={v} value={String(v)}>
          {label}
        </option>
      ))}
    </select>
  );
}

/**
 * The one list page of the console: search and select filters, sortable columns (`_sort`/`_order`), paging, and per
 * row edit and delete. Filters named in the page's URL query (`/devices?productID=…`) start set.
 */
export function ListPage({ spec }: { spec: ListSpec }) {
  const fromUrl: Record<string, string> = { ...spec.initialFilters };
  const url = new URLSearchParams(location.search);
  for (const f of spec.filters ?? []) if (url.get(f.name) !== null) fromUrl[f.name] = url.get(f.name)!;
  const list = useListState(fromUrl);
  const [actionError, setActionError] = useState<Error>();
  const { data, error, reload } = useLoad(
    () => api<Page<Rec>>("GET", `${spec.api}${list.query}`),
    [list.query, spec.version],
  );
  // Lists that follow live events poll only while the stream is not open.
  const live = useLiveState();
  useInterval(reload, spec.liveTypes && live === "open" ? 0 : (spec.refreshMs ?? 0));
  const types = spec.liveTypes;
  useLive(types ? reload : undefined, (e) => types?.includes(e.type) ?? false);
  const remove = (r: Rec) => {
    if (!confirm(t("confirmDelete"))) return;
    setActionError(undefined);
    void api("DELETE", `${spec.api}?ids=${r.id}`).then(() => (spec.onChange ?? reload)(), setActionError);
  };
  const rowButtons = spec.editHref || spec.deletable || spec.actions;
  const columns: Column[] = rowButtons
    ? [
        ...spec.columns,
        {
          label: "",
          cell: (r) => (
            <span class="row-actions">
              {spec.actions?.(r, reload)}
              {spec.editHref ? (
                <Link href={spec.editHref(r)} class="button small">
                  {t("edit")}
                </Link>
              ) : null}
              {spec.deletable ? (
                <button class="small" data-delete={r.id} onClick={() => remove(r)}>
                  {t("delete")}
                </button>
              ) : null}
            </span>
          ),
        },
      ]
    : spec.columns;
  const toolbar = spec.embedded ? null : (
    <div class="toolbar">
      {(spec.filters ?? []).map((f) =>
        f.kind === "select" ? (
          <FilterSelect key={f.name} f={f} value={list.filters[f.name] ?? ""} set={(v) => list.setFilter(f.name, v)} />
        ) : (
          <input
            key={f.name}
            type="search"
            name={f.name}
            placeholder={f.label}
            value={list.filters[f.name] ?? ""}
            onInput={(e) => list.setFilter(f.name, e.currentTarget.value)}
          />
        ),
      )}
      {spec.newHref ? (
        <Link href={spec.newHref} class="button primary">
          {spec.newLabel ?? t("create")}
        </Link>
      ) : null}
    </div>
  );
  return (
    <div>
      {spec.embedded ? <h2>{spec.title}</h2> : <h1>{spec.title}</h1>}
      {toolbar}
      <ErrorBox error={error ?? actionError} />
      <Table testId={spec.testId} rows={data?.items} sort={list.sort} onSort={list.toggleSort} columns={columns} />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}
