import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { session } from "./api.ts";
import { LANG, t, type LabelKey } from "./i18n.ts";
import { Link, match, navigate, useLocation } from "./router.tsx";
import { Login } from "./pages/login.tsx";
import { Dashboard } from "./pages/dashboard.tsx";
import { ProductPage } from "./pages/products.tsx";
import { DevicePage } from "./pages/device.tsx";
import { GroupPage } from "./pages/groups.tsx";
import { Transfer } from "./pages/transfer.tsx";
import { resourceRoutes } from "./resource.tsx";
import { alerts } from "./resources/alerts.tsx";
import { certs } from "./resources/certs.tsx";
import { dataPoints, dataStreams, metrics } from "./resources/data-model.tsx";
import { devices } from "./resources/devices.tsx";
import { gateways } from "./resources/gateways.tsx";
import { groups } from "./resources/groups.tsx";
import { policies } from "./resources/policies.tsx";
import { products } from "./resources/products.tsx";
import { deviceSchedules, groupSchedules } from "./resources/schedules.tsx";
import { applications, users } from "./resources/users.tsx";
import "./style.css";

document.documentElement.lang = LANG === "zh" ? "zh-CN" : "en";
document.title = t("appName");

type Page = (p: Record<string, string>) => preact.JSX.Element;
/** Client routes, first match wins: every resource's list, create and edit, then the pages of one record. */
const routes: [string, Page][] = [
  ["/", Dashboard],
  ...[products, devices, groups, gateways, metrics, dataPoints, dataStreams, certs, policies, alerts].flatMap(
    resourceRoutes,
  ),
  ...[deviceSchedules, groupSchedules, users, applications].flatMap(resourceRoutes),
  ["/products/:id", ProductPage],
  ["/devices/:id", DevicePage],
  ["/groups/:id", GroupPage],
  ["/transfer", Transfer],
];

const nav: [string, LabelKey][] = [
  ["/", "dashboard"],
  ["/products", "products"],
  ["/devices", "devices"],
  ["/gateways", "gateways"],
  ["/groups", "groups"],
  ["/metrics", "metrics"],
  ["/alerts", "alerts"],
  ["/schedules", "deviceSchedules"],
  ["/group_schedules", "groupSchedules"],
  ["/certs", "certificates"],
  ["/policies", "policies"],
  ["/transfer", "importExport"],
  ["/users", "users"],
  ["/applications", "applications"],
];

/** Pages the API answers only to a tenant's admins. */
const ADMIN_ONLY = new Set(["/users", "/applications"]);

function App() {
  const [token, setToken] = useState(session.token);
  useEffect(() => session.onChange(() => setToken(session.token)), []);
  const { path } = useLocation();
  if (!token) return <Login />;
  const isAdmin = session.user?.role === "admin";
  let page: preact.JSX.Element = <p>404</p>;
  for (const [pattern, Component] of routes) {
    const params = match(pattern, path);
    if (params) {
      page = <Component key={path} {...params} />;
      break;
    }
  }
  const section = `/${path.split("/")[1] ?? ""}`;
  return (
    <div class="layout">
      <nav class="side">
        <div class="brand">{t("appName")}</div>
        {nav
          .filter(([href]) => isAdmin || !ADMIN_ONLY.has(href))
          .map(([href, key]) => (
            <Link key={href} href={href} class={section === href ? "active" : ""}>
              {t(key)}
            </Link>
          ))}
        <div class="user">
          <span>{session.user?.username ?? ""}</span>
          <button
            data-testid="logout"
            onClick={() => {
              session.set(null);
              navigate("/", true);
            }}
          >
            {t("logout")}
          </button>
        </div>
      </nav>
      <main>{page}</main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
