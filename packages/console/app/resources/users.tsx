import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";
import { CopyButton } from "../ui.tsx";
import { YES_NO } from "./options.ts";

const ROLES: [string, string][] = [
  ["admin", "admin"],
  ["operator", "operator"],
  ["viewer", "viewer"],
];

/** The tenant's users (admins only; the API answers 403 to others). */
export const users: Resource = {
  route: "/users",
  api: "/users",
  testId: "user",
  title: () => t("users"),
  newLabel: () => t("newUser"),
  editLabel: () => t("editUser"),
  list: () => ({
    filters: [{ name: "username_like", label: t("searchByName") }],
    columns: [
      { label: t("username"), cell: (u) => u.username, sort: "username" },
      { label: t("role"), cell: (u) => u.role },
      { label: "e-mail", cell: (u) => u.email ?? "" },
      { label: t("enabled"), cell: (u) => (u.enable === 0 ? "✘" : "✔") },
      { label: t("createAt"), cell: (u) => u.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "username", label: t("username"), createOnly: true },
    { name: "password", label: t("password"), kind: "password" },
    { name: "role", label: t("role"), kind: "select", options: ROLES },
    { name: "email", label: "e-mail" },
    { name: "enable", label: t("enabled"), kind: "select", options: YES_NO(), editOnly: true },
  ],
  initial: () => ({ username: "", password: "", role: "operator" }),
};

/** Application keys: `Basic appID:appToken` for programs; the token is shown once, after the create. */
export const applications: Resource = {
  route: "/applications",
  api: "/applications",
  testId: "application",
  title: () => t("applications"),
  newLabel: () => t("newApplication"),
  editLabel: () => t("editApplication"),
  list: () => ({
    filters: [{ name: "appName_like", label: t("searchByName") }],
    columns: [
      { label: t("name"), cell: (a) => a.appName },
      { label: "appID", cell: (a) => <code>{a.appID}</code> },
      { label: t("role"), cell: (a) => a.role },
      { label: t("enabled"), cell: (a) => (a.enable === 0 ? "✘" : "✔") },
      { label: t("expiresAt"), cell: (a) => a.expiresAt ?? "—" },
      { label: t("createAt"), cell: (a) => a.createAt, sort: "createAt" },
    ],
  }),
  fields: () => [
    { name: "appName", label: t("name") },
    { name: "role", label: t("role"), kind: "select", options: ROLES },
    { name: "description", label: t("description"), kind: "textarea" },
    { name: "expiresAt", label: `${t("expiresAt")} (UTC)`, placeholder: "YYYY-MM-DD HH:MM:SS" },
    { name: "enable", label: t("enabled"), kind: "select", options: YES_NO(), editOnly: true },
  ],
  initial: () => ({ appName: "", role: "operator", description: "" }),
  afterCreate: (a) => (
    <div data-testid="app-token">
      <h1>{String(a.appName)}</h1>
      <p>{t("tokenShownOnce")}</p>
      <dl class="props">
        <dt>appID</dt>
        <dd>
          <code data-cred="appID">{String(a.appID)}</code> <CopyButton text={String(a.appID)} name="appID" />
        </dd>
        <dt>appToken</dt>
        <dd>
          <code data-cred="appToken">{String(a.appToken)}</code>{" "}
          <CopyButton text={String(a.appToken)} name="appToken" />
        </dd>
      </dl>
    </div>
  ),
};
