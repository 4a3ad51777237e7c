import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { session } from "./api.ts";
import { LANG, t, type LabelKey } from "./i18n.ts";
import { Link, match, navigate, useLocation } from "./router.tsx";
import { Login } from "./pages/login.tsx";
import { Dashboard } from "./pages/dashboard.tsx";
import { ProductList, ProductNew, ProductPage } from "./pages/products.tsx";
import { DeviceList, DeviceNew } from "./pages/devices.tsx";
import { DevicePage } from "./pages/device.tsx";
import { GroupList, GroupNew, GroupPage } from "./pages/groups.tsx";
import { AlertList } from "./pages/alerts.tsx";
import { CertList, CertNew } from "./pages/certs.tsx";
import { PolicyList, PolicyNew } from "./pages/policies.tsx";
import { Transfer } from "./pages/transfer.tsx";
import "./style.css";

document.documentElement.lang = LANG === "zh" ? "zh-CN" : "en";
document.title = t("appName");

type Page = (p: Record<string, string>) => preact.JSX.Element;
/** Client routes, first match wins. */
const routes: [string, Page][] = [
  ["/", Dashboard],
  ["/products", ProductList],
  ["/products/new", ProductNew],
  ["/products/:id", ProductPage],
  ["/devices", DeviceList],
  ["/devices/new", DeviceNew],
  ["/devices/:id", DevicePage],
  ["/groups", GroupList],
  ["/groups/new", GroupNew],
  ["/groups/:id", GroupPage],
  ["/alerts", AlertList],
  ["/certs", CertList],
  ["/certs/new", CertNew],
  ["/policies", PolicyList],
  ["/policies/new", PolicyNew],
  ["/transfer", Transfer],
];

const nav: [string, LabelKey][] = [
  ["/", "dashboard"],
  ["/products", "products"],
  ["/devices", "devices"],
  ["/groups", "groups"],
  ["/alerts", "alerts"],
  ["/certs", "certificates"],
  ["/policies", "policies"],
  ["/transfer", "importExport"],
];

function App() {
  const [token, setToken] = useState(session.token);
  useEffect(() => session.onChange(() => setToken(session.token)), []);
  const { path } = useLocation();
  if (!token) return <Login />;
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
        {nav.map(([href, key]) => (
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
