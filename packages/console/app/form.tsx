import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "./api.ts";
import { t } from "./i18n.ts";
import { Link } from "./router.tsx";
import { ErrorBox, Field, errorsOf, useLoad } from "./ui.tsx";

/** A choice of a select: the value sent and its label. */
export type Option = [string | number, string];

/** Options read from a list endpoint: `path` (may depend on the form's values), the value and label fields. */
export interface OptionsFrom {
  path: string | ((body: Rec) => string | undefined);
  value: string;
  label: string | ((r: Rec) => string);
}

/** One field of a RecordForm. */
export interface FormField {
  name: string;
  label: string;
  kind?: "text" | "textarea" | "number" | "password" | "select" | "multiselect";
  options?: Option[];
  optionsFrom?: OptionsFrom;
  /** The field shows (and is sent) only while this holds for the form's values and the loaded option records. */
  when?: (body: Rec, records: (name: string) => Rec[]) => boolean;
  /** Only in the create form (e.g. a record's parent, which an edit cannot change). */
  createOnly?: boolean;
  /** Only in the edit form (e.g. enable, which a create does not take). */
  editOnly?: boolean;
  /** Helps pick other fields' options but is not sent (e.g. the product a metric's data point belongs to). */
  local?: boolean;
  placeholder?: string;
}

/** What a RecordForm hands its `submit`: the body to send and the loaded option records (`records(name)`). */
export interface FormSubmit {
  body: Rec;
  records: (name: string) => Rec[];
}

/** Options of a select field: its static list, or the records of its endpoint turned into options. */
function optionsOf(f: FormField, loaded: Record<string, Rec[]>): Option[] {
  if (f.options) return f.options;
  const from = f.optionsFrom;
  if (!from) return [];
  return (loaded[f.name] ?? []).map((r) => [
    r[from.value] as string | number,
    typeof from.label === "function" ? from.label(r) : String(r[from.label] ?? ""),
  ]);
}

/** Loads the records behind every `optionsFrom` field, again whenever a path changes with the form's values. */
function useOptionRecords(fields: FormField[], body: Rec): Record<string, Rec[]> {
  const paths = fields.map((f) => {
    const p = f.optionsFrom?.path;
    return typeof p === "function" ? p(body) : p;
  });
  const { data } = useLoad(async () => {
    const out: Record<string, Rec[]> = {};
    await Promise.all(
      fields.map(async (f, i) => {
        const path = paths[i];
        if (!path) return;
        const r = await api<Page<Rec> | Rec[]>("GET", path);
        out[f.name] = Array.isArray(r) ? r : r.items;
      }),
    );
    return out;
  }, [paths.join("\n")]);
  return data ?? {};
}

/** A field's value as the API takes it: numbers for number fields and numeric options, null for a cleared number. */
function valueOf(f: FormField, raw: unknown, options: Option[]): unknown {
  if (f.kind === "number") return raw === "" || raw === undefined || raw === null ? null : Number(raw);
  if (f.kind === "select" && typeof options[0]?.[0] === "number" && raw !== "" && raw !== undefined) {
    return Number(raw);
  }
  return raw;
}

/**
 * The one form of the console, to create or edit any record. Create sends every shown field the form holds a value
 * for (defaults, or typed; plus `extra`); edit sends only the fields changed, so read-only or untouched members are
 * never re-validated. The API's field errors (`errors`) are shown beside the field they name, anything else under
 * the form.
 */
export function RecordForm(props: {
  title: string;
  fields: FormField[];
  /** Defaults of a create form, or the record being edited. */
  initial: Rec;
  mode: "create" | "edit";
  /** Members sent with every create (a parent's id) and not shown. */
  extra?: Rec;
  cancel?: string;
  testId?: string;
  /** Shown as a block inside a page (smaller title), reset after each create. */
  inline?: boolean;
  /** The submit button's label (Create or Save by default). */
  submitLabel?: string;
  submit: (s: FormSubmit) => Promise<void>;
}) {
  const [body, setBody] = useState<Rec>(props.initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const loaded = useOptionRecords(props.fields, body);
  const records = (name: string) => loaded[name] ?? [];
  const shown = props.fields.filter(
    (f) => !(props.mode === "edit" ? f.createOnly : f.editOnly) && (!f.when || f.when(body, records)),
  );
  const set = (k: string, v: unknown) => setBody((b) => ({ ...b, [k]: v }));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const sent: Rec = props.mode === "create" ? { ...props.extra } : {};
    for (const f of shown) {
      if (f.local) continue;
      const v = valueOf(f, body[f.name], optionsOf(f, loaded));
      // A create sends what the form holds, "" included (the API then names a required field left empty).
      if (props.mode === "create" ? v !== null && v !== undefined : !same(v, props.initial[f.name])) {
        sent[f.name] = v;
      }
    }
    setBusy(true);
    try {
      await props.submit({ body: sent, records });
      setErrors({});
      if (props.inline) setBody(props.initial);
    } catch (err) {
      setErrors(errorsOf(err));
    } finally {
      setBusy(false);
    }
  };
  const heading = !props.title ? null : props.inline ? <h3>{props.title}</h3> : <h1>{props.title}</h1>;
  return (
    <form class={props.inline ? "form" : "card form"} onSubmit={(e) => void onSubmit(e)} data-testid={props.testId}>
      {heading}
      {shown.map((f) => (
        <Field key={f.name} label={f.label} name={f.name} errors={errors}>
          <Input field={f} value={body[f.name]} options={optionsOf(f, loaded)} set={(v) => set(f.name, v)} />
        </Field>
      ))}
      {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
      {Object.keys(errors).some((k) => k !== "_form" && !shown.some((f) => f.name === k)) ? (
        <ErrorBox
          error={
            new Error(
              Object.entries(errors)
                .filter(([k]) => k !== "_form" && !shown.some((f) => f.name === k))
                .map(([k, v]) => `${k}: ${v}`)
                .join("; "),
            )
          }
        />
      ) : null}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel ?? (props.mode === "create" ? t("create") : t("save"))}
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

/** Whether a form value equals the record's (numbers and digit strings alike, arrays by content). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
  if ((a === "" || a === null || a === undefined) && (b === "" || b === null || b === undefined)) return true;
  return String(a) === String(b);
}

/** A value as an input shows it: "" for none, JSON for objects (a device's `location`). */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return v === null || v === undefined ? "" : JSON.stringify(v);
}

/** The input of one field. */
function Input(props: { field: FormField; value: unknown; options: Option[]; set: (v: unknown) => void }) {
  const { field: f, value, options, set } = props;
  if (f.kind === "multiselect") {
    const chosen = ((value as unknown[] | undefined) ?? []).map(String);
    return (
      <select
        multiple
        name={f.name}
        onChange={(e) => set([...e.currentTarget.selectedOptions].map((o) => Number(o.value)))}
      >
        {options.map(([v, label]) => (
          <option key={v} value={String(v)} selected={chosen.includes(String(v))}>
            {label}
          </option>
        ))}
      </select>
    );
  }
  if (f.kind === "select") {
    return (
      <select name={f.name} value={textOf(value)} onChange={(e) => set(e.currentTarget.value)}>
        {options.some(([v]) => String(v) === textOf(value)) ? null : <option value="">—</option>}
        {options.map(([v, label]) => (
          <option key={v} value={String(v)}>
            {label}
          </option>
        ))}
      </select>
    );
  }
  const text = textOf(value);
  if (f.kind === "textarea") {
    return <textarea name={f.name} value={text} onInput={(e) => set(e.currentTarget.value)} />;
  }
  const onInput = (e: { currentTarget: HTMLInputElement }) => set(e.currentTarget.value);
  if (f.kind === "password") return <input name={f.name} type="password" value={text} onInput={onInput} />;
  if (f.kind === "number") return <input name={f.name} type="number" value={text} onInput={onInput} />;
  return <input name={f.name} value={text} placeholder={f.placeholder} onInput={onInput} />;
}
