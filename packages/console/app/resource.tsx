import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, type Rec } from "./api.ts";
import { RecordForm, type FormField, type FormSubmit } from "./form.tsx";
import { ListPage, type ListSpec } from "./list-page.tsx";
import { back, navigate } from "./router.tsx";
import { ErrorBox, useLoad } from "./ui.tsx";

/**
 * A kind of record the console lists, creates and edits through the same two components (ListPage, RecordForm):
 * its API collection, console path, columns, filters and form fields. Pages of their own (a device, a product) are
 * added beside the routes this gives.
 */
export interface Resource {
  /** Console path (`/products`): the list there, `/new`, `/<id>/edit`. */
  route: string;
  /** API collection (`/products`): `GET` lists, `POST` creates, `GET`/`PUT /<id>` read and edit, `DELETE ?ids=`. */
  api: string;
  /** Test id base: `<testId>-table`, `<testId>-form`. */
  testId: string;
  title: () => string;
  newLabel: () => string;
  editLabel: () => string;
  list: () => Pick<ListSpec, "columns" | "filters" | "initialFilters" | "refreshMs" | "liveTypes" | "actions">;
  fields: () => FormField[];
  /** Defaults of the create form. */
  initial: () => Rec;
  /** A page of its own at `<route>/<id>`: create and edit go there; otherwise back to the list. */
  detail?: boolean;
  creatable?: boolean;
  editable?: boolean;
  deletable?: boolean;
  /** The body as the API takes it (members the fields imply), from the form's body and loaded option records. */
  toBody?: (s: FormSubmit, mode: "create" | "edit", record: Rec) => Rec;
  /** After a create: what to show instead of leaving (a secret answered once), or undefined to go on. */
  afterCreate?: (created: Rec) => ComponentChildren | undefined | Promise<ComponentChildren | undefined>;
}

/** Where a resource's records go after a create or edit. */
const doneHref = (r: Resource, rec: Rec) => (r.detail ? `${r.route}/${rec.id}` : r.route);

/** A resource's list page. */
function ResourceList({ r }: { r: Resource }) {
  return (
    <ListPage
      spec={{
        ...r.list(),
        title: r.title(),
        api: r.api,
        testId: `${r.testId}-table`,
        newHref: r.creatable === false ? undefined : `${r.route}/new`,
        newLabel: r.newLabel(),
        editHref: r.editable === false ? undefined : (rec) => `${r.route}/${rec.id}/edit`,
        deletable: r.deletable !== false,
      }}
    />
  );
}

/** A resource's create form. */
function ResourceNew({ r, extra }: { r: Resource; extra?: Rec }) {
  const [shown, setShown] = useState<ComponentChildren>();
  const fields = r.fields();
  // Fields named in the URL's query start filled (`/metrics/new?productID=…` from a product's page).
  const fromUrl: Rec = {};
  new URLSearchParams(location.search).forEach((v, k) => {
    if (fields.some((f) => f.name === k)) fromUrl[k] = v;
  });
  if (shown) return <div class="card">{shown}</div>;
  return (
    <RecordForm
      mode="create"
      title={r.newLabel()}
      testId={`${r.testId}-form`}
      cancel={r.route}
      fields={fields}
      initial={{ ...r.initial(), ...fromUrl, ...extra }}
      submit={async (s) => {
        const created = await api<Rec | null>("POST", r.api, r.toBody ? r.toBody(s, "create", {}) : s.body);
        const show = created && r.afterCreate ? await r.afterCreate(created) : undefined;
        if (show) setShown(show);
        else navigate(created ? doneHref(r, created) : r.route);
      }}
    />
  );
}

/** A resource's edit form, filled with the record (`GET <api>/<id>`); saves the changed fields (`PUT`). */
function ResourceEdit({ r, id }: { r: Resource; id: string }) {
  const { data, error } = useLoad(() => api<Rec>("GET", `${r.api}/${id}`), [id]);
  if (!data) return <ErrorBox error={error} />;
  return (
    <RecordForm
      mode="edit"
      title={r.editLabel()}
      testId={`${r.testId}-form`}
      cancel={doneHref(r, data)}
      fields={r.fields()}
      initial={data}
      submit={async (s) => {
        await api("PUT", `${r.api}/${id}`, r.toBody ? r.toBody(s, "edit", data) : s.body);
        back(doneHref(r, data));
      }}
    />
  );
}

/** The client routes of a resource: list, create and edit. */
export function resourceRoutes(r: Resource): [string, (p: Record<string, string>) => preact.JSX.Element][] {
  return [
    [r.route, () => <ResourceList r={r} />],
    [`${r.route}/new`, () => <ResourceNew r={r} />],
    [`${r.route}/:id/edit`, (p) => <ResourceEdit r={r} id={p.id!} />],
  ];
}
