import { useState } from "preact/hooks";
import type { Rec } from "./api.ts";
import { t } from "./i18n.ts";
import { Link } from "./router.tsx";
import { ErrorBox, Field, errorsOf } from "./ui.tsx";

/** One field of a SimpleForm: a text input, a textarea, a select of numeric or string options, or a multi-select. */
export interface FormField {
  name: string;
  label: string;
  kind?: "text" | "textarea" | "select" | "multiselect";
  options?: [string | number, string][];
}

/** A create form whose submit errors are shown beside the fields the API names. */
export function SimpleForm(props: {
  title: string;
  fields: FormField[];
  initial: Rec;
  /** Where Cancel goes; no Cancel link when absent. */
  cancel?: string;
  testId?: string;
  /** Shown as a section inside a page (smaller title) rather than as the page. */
  inline?: boolean;
  submit: (body: Rec) => Promise<void>;
}) {
  const [body, setBody] = useState<Rec>(props.initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (k: string, v: unknown) => setBody((b) => ({ ...b, [k]: v }));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    try {
      await props.submit(body);
      setErrors({});
      if (props.inline) setBody(props.initial);
    } catch (err) {
      setErrors(errorsOf(err));
    }
  };
  return (
    <form class={props.inline ? "form" : "card form"} onSubmit={(e) => void onSubmit(e)} data-testid={props.testId}>
      {props.inline ? <h3>{props.title}</h3> : <h1>{props.title}</h1>}
      {props.fields.map((f) => (
        <Field key={f.name} label={f.label} name={f.name} errors={errors}>
          {f.kind === "multiselect" ? (
            <select
              multiple
              name={f.name}
              onChange={(e) =>
                set(
                  f.name,
                  [...e.currentTarget.selectedOptions].map((o) => Number(o.value)),
                )
              }
            >
              {(f.options ?? []).map(([v, label]) => (
                <option key={v} value={String(v)} selected={((body[f.name] as unknown[]) ?? []).includes(v)}>
                  {label}
                </option>
              ))}
            </select>
          ) : f.kind === "select" ? (
            <select
              name={f.name}
              value={String(body[f.name] ?? "")}
              onChange={(e) => {
                const raw = e.currentTarget.value;
                set(f.name, typeof f.options?.[0]?.[0] === "number" ? Number(raw) : raw);
              }}
            >
              {(f.options ?? []).map(([v, label]) => (
                <option key={v} value={String(v)}>
                  {label}
                </option>
              ))}
            </select>
          ) : f.kind === "textarea" ? (
            <textarea name={f.name} value={body[f.name] ?? ""} onInput={(e) => set(f.name, e.currentTarget.value)} />
          ) : (
            <input name={f.name} value={body[f.name] ?? ""} onInput={(e) => set(f.name, e.currentTarget.value)} />
          )}
        </Field>
      ))}
      {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
      <div class="row">
        <button type="submit" class="primary">
          {t("create")}
        </button>
        {props.cancel ? (
          <Link href={props.cancel} class="button">
            {t("cancel")}
          </Link>
        ) : null}
      </div>
    </form>
  );
}
