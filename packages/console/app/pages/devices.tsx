import { useState } from "preact/hooks";
import { api, type Page, type Rec } from "../api.ts";
import { FORM, deviceStatus } from "../deployment.ts";
import { t } from "../i18n.ts";
import { useLive } from "../live.ts";
import { useListState } from "../list-state.ts";
import { Link, navigate } from "../router.tsx";
import { ErrorBox, Field, Pager, StatusBadge, Table, errorsOf, useInterval, useLoad } from "../ui.tsx";

/** Products for a select (the first 1000). */
export function useProducts() {
  return useLoad(() => api<Page<Rec>>("GET", "/products?_limit=1000").then((r) => r.items), []);
}

/** Devices: search by name and deviceID (`_like`), filter by product and type, sort, page; refreshed every 5 s. */
export function DeviceList() {
  const initial = new URLSearchParams(location.search);
  const list = useListState(initial.get("productID") ? { productID: initial.get("productID")! } : {});
  const products = useProducts();
  const { data, error, reload } = useLoad(() => api<Page<Rec>>("GET", `/devices${list.query}`), [list.query]);
  useInterval(reload, 5000);
  useLive(reload);
  return (
    <div>
      <h1>{t("devices")}</h1>
      <div class="toolbar">
        <input
          type="search"
          name="deviceName_like"
          placeholder={t("searchByName")}
          value={list.filters.deviceName_like ?? ""}
          onInput={(e) => list.setFilter("deviceName_like", e.currentTarget.value)}
        />
        <input
          type="search"
          name="deviceID_like"
          placeholder={t("searchByDeviceID")}
          value={list.filters.deviceID_like ?? ""}
          onInput={(e) => list.setFilter("deviceID_like", e.currentTarget.value)}
        />
        <select
          name="productID"
          value={list.filters.productID ?? ""}
          onChange={(e) => list.setFilter("productID", e.currentTarget.value)}
        >
          <option value="">
            {t("product")}: {t("all")}
          </option>
          {(products.data ?? []).map((p) => (
            <option key={p.id} value={p.productID}>
              {p.productName}
            </option>
          ))}
        </select>
        {FORM === "2" ? (
          <select
            name="deviceType_like"
            value={list.filters.deviceType_like ?? ""}
            onChange={(e) => list.setFilter("deviceType_like", e.currentTarget.value)}
          >
            <option value="">
              {t("deviceType")}: {t("all")}
            </option>
            <option value="0">{t("terminal")}</option>
            <option value="1">{t("gateway")}</option>
            <option value="2">{t("smartphone")}</option>
          </select>
        ) : null}
        <Link href="/devices/new" class="button primary">
          {t("newDevice")}
        </Link>
      </div>
      <ErrorBox error={error} />
      <Table
        testId="device-table"
        rows={data?.items}
        sort={list.sort}
        onSort={list.toggleSort}
        columns={[
          { label: t("name"), cell: (d) => <Link href={`/devices/${d.id}`}>{d.deviceName}</Link>, sort: "deviceName" },
          { label: "deviceID", cell: (d) => <code>{d.deviceID}</code> },
          { label: t("product"), cell: (d) => d.productName },
          ...(FORM === "1" ? [{ label: t("protocol"), cell: (d: Rec) => d.cloudProtocolLabel }] : []),
          { label: t("deviceType"), cell: (d) => d.deviceTypeLabel },
          { label: t("status"), cell: (d) => <StatusBadge {...deviceStatus(d)} />, sort: "deviceStatus" },
          { label: t("createAt"), cell: (d) => d.createAt, sort: "createAt" },
        ]}
      />
      <Pager meta={data?.meta} onPage={list.setPage} />
    </div>
  );
}

/**
 * Creates a device. Form 1 asks what the product's protocol needs (token or certificate devices; IMEI and autoSub
 * for LwM2M; modBusIndex and gateway for Modbus); Form 2 asks name, product, type and authentication.
 */
export function DeviceNew() {
  const products = useProducts();
  const [body, setBody] = useState<Rec>({
    deviceName: "",
    productID: "",
    authType: 1,
    deviceType: FORM === "1" ? 1 : 0,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (k: string, v: unknown) => setBody((b) => ({ ...b, [k]: v }));
  const product = products.data?.find((p) => p.productID === body.productID);
  const protocol = Number(product?.cloudProtocol ?? 1);
  const input = (name: string, numeric = false) =>
    numeric ? (
      <input name={name} type="number" value={body[name] ?? ""} onInput={(e) => set(name, e.currentTarget.value)} />
    ) : (
      <input name={name} value={body[name] ?? ""} onInput={(e) => set(name, e.currentTarget.value)} />
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    const sent: Rec = {};
    for (const [k, v] of Object.entries(body)) if (v !== "" && v !== undefined) sent[k] = v;
    if (FORM === "1" && sent.deviceType === 1) sent.upLinkSystem ??= protocol === 7 && sent.gateway ? 2 : 1;
    if (protocol === 3) sent.autoSub = Number(sent.autoSub ?? 1);
    try {
      const d = await api<Rec>("POST", "/devices", sent);
      navigate(`/devices/${d.id}`);
    } catch (err) {
      setErrors(errorsOf(err));
    }
  };
  return (
    <form class="card form" onSubmit={(e) => void submit(e)} data-testid="device-form">
      <h1>{t("newDevice")}</h1>
      <Field label={t("name")} name="deviceName" errors={errors}>
        {input("deviceName")}
      </Field>
      <Field label={t("product")} name="productID" errors={errors}>
        <select name="productID" value={body.productID} onChange={(e) => set("productID", e.currentTarget.value)}>
          <option value="">—</option>
          {(products.data ?? []).map((p) => (
            <option key={p.id} value={p.productID}>
              {p.productName}
              {p.cloudProtocolLabel ? ` (${p.cloudProtocolLabel})` : ""}
            </option>
          ))}
        </select>
      </Field>
      <Field label={t("deviceType")} name="deviceType" errors={errors}>
        <select
          name="deviceType"
          value={body.deviceType}
          onChange={(e) => set("deviceType", Number(e.currentTarget.value))}
        >
          {FORM === "1" ? (
            <>
              <option value={1}>{t("terminal")}</option>
              <option value={3}>{t("smartphone")}</option>
            </>
          ) : (
            <>
              <option value={0}>{t("terminal")}</option>
              <option value={1}>{t("gateway")}</option>
              <option value={2}>{t("smartphone")}</option>
            </>
          )}
        </select>
      </Field>
      <Field label={t("authType")} name="authType" errors={errors}>
        <select name="authType" value={body.authType} onChange={(e) => set("authType", Number(e.currentTarget.value))}>
          <option value={1}>{t("token")}</option>
          <option value={2}>{t("certificate")}</option>
        </select>
      </Field>
      <Field label="deviceID" name="deviceID" errors={errors}>
        {input("deviceID")}
      </Field>
      <Field label="deviceUsername" name="deviceUsername" errors={errors}>
        {input("deviceUsername")}
      </Field>
      {FORM === "1" ? (
        <Field label={t("token")} name="token" errors={errors}>
          {input("token")}
        </Field>
      ) : null}
      {FORM === "1" && protocol === 3 ? (
        <>
          <Field label="IMEI" name="IMEI" errors={errors}>
            {input("IMEI")}
          </Field>
          <Field label="autoSub" name="autoSub" errors={errors}>
            <select
              name="autoSub"
              value={body.autoSub ?? 1}
              onChange={(e) => set("autoSub", Number(e.currentTarget.value))}
            >
              <option value={1}>1</option>
              <option value={0}>0</option>
            </select>
          </Field>
        </>
      ) : null}
      {FORM === "1" && protocol === 7 ? (
        <>
          <Field label="modBusIndex" name="modBusIndex" errors={errors}>
            {input("modBusIndex", true)}
          </Field>
          <Field label={`${t("gateway")} (id)`} name="gateway" errors={errors}>
            {input("gateway", true)}
          </Field>
        </>
      ) : null}
      <Field label={t("description")} name="description" errors={errors}>
        {input("description")}
      </Field>
      {errors._form ? <ErrorBox error={new Error(errors._form)} /> : null}
      <div class="row">
        <button type="submit" class="primary">
          {t("create")}
        </button>
        <Link href="/devices" class="button">
          {t("cancel")}
        </Link>
      </div>
    </form>
  );
}
