import { useState } from "preact/hooks";
import { qs } from "./api.ts";

/** Paging, sorting and filters of a list page, turned into the list endpoint's query string. */
export function useListState(initial: Record<string, string> = {}, limit = 20) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<{ field: string; order: "asc" | "desc" }>({ field: "id", order: "desc" });
  const [filters, setFilters] = useState<Record<string, string>>(initial);
  const query = qs({ _page: page, _limit: limit, _sort: sort.field, _order: sort.order, ...filters });
  return {
    query,
    page,
    setPage,
    sort,
    /** Sorts by `field`; the same field again flips the order. */
    toggleSort: (field: string) =>
      setSort((s) => ({ field, order: s.field === field && s.order === "asc" ? "desc" : "asc" })),
    filters,
    /** Sets one filter and goes back to the first page. */
    setFilter: (name: string, value: string) => {
      setFilters((f) => ({ ...f, [name]: value }));
      setPage(1);
    },
  };
}
