import { useState } from "preact/hooks";
import { api, session } from "../api.ts";
import { t } from "../i18n.ts";
import { ErrorBox, Field, errorsOf } from "../ui.tsx";

/** The login form: `POST /login` with the users of the API; the token goes to the session. */
export function Login() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api("POST", "/login", { username, password });
      session.set(r.token, { username: r.username, role: r.role, tenantID: r.tenantID });
    } catch (err) {
      setErrors(errorsOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="login">
      <form class="card" onSubmit={(e) => void submit(e)}>
        <h1>{t("appName")}</h1>
        <Field label={t("username")} name="username" errors={errors}>
          <input
            name="username"
            autocomplete="username"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </Field>
        <Field label={t("password")} name="password" errors={errors}>
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
        <button type="submit" class="primary" disabled={busy}>
          {t("login")}
        </button>
      </form>
    </div>
  );
}
