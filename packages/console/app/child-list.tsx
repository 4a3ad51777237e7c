import { useState } from "preact/hooks";
import { api, type Rec } from "./api.ts";
import { RecordForm, type FormField } from "./form.tsx";
import { ListPage, type ListSpec } from "./list-page.tsx";

/**
 * The records under another one (a product's data points, a device's policies, a group's members): the shared list,
 * embedded, with Delete per row, and the shared form adding to it (`POST` to the list's path unless `submit` says
 * otherwise). Both are read again after an addition or a removal, here or, with `version`, anywhere on the page.
 */
export function ChildList(props: {
  spec: Omit<ListSpec, "embedded" | "version" | "onChange">;
  form: { title: string; testId: string; fields: FormField[]; initial?: Rec; extra?: Rec };
  /** The page's own version and how to bump it, when several lists on a page depend on each other. */
  version?: number;
  changed?: () => void;
}) {
  const [own, setOwn] = useState(0);
  const version = props.version ?? own;
  const changed = props.changed ?? (() => setOwn((v) => v + 1));
  return (
    <section class="card">
      <ListPage spec={{ deletable: true, ...props.spec, embedded: true, version, onChange: changed }} />
      <RecordForm
        inline
        mode="create"
        key={version}
        title={props.form.title}
        testId={props.form.testId}
        fields={props.form.fields}
        initial={props.form.initial ?? {}}
        extra={props.form.extra}
        submit={async (s) => {
          await api("POST", props.spec.api, s.body);
          changed();
        }}
      />
    </section>
  );
}
