import { describe, expect, it } from "vitest";
import { metricValue } from "@iot/config";
import type { AdapterLink } from "../sessions/session-table.js";
import { SessionTable } from "../sessions/session-table.js";
import { countDatabaseError, databaseErrorLog, protocolLabel } from "./registry-metrics.js";

const link = (instanceId: string, protocol: number): AdapterLink => ({
  instanceId,
  protocol,
  version: "t",
  attachedAt: 0,
  sendDownlink: () => {},
  kick: () => {},
  updatePolicies: () => {},
  updateSubscriptions: () => {},
  updateRetained: () => {},
  updateTenantLimits: () => {},
});
const session = (sessionId: string, deviceIntId: number) => ({
  sessionId,
  deviceIntId,
  credentialStamp: "",
  tenantId: "t",
  clientIp: "",
  keepAlive: 0,
  openedAt: 0,
});

describe("registry metrics", () => {
  it("name protocols by their adapter, and unknown codes by number", () => {
    expect([1, 2, 3, 5, 7].map(protocolLabel)).toEqual(["mqtt", "coap", "lwm2m", "http", "modbus"]);
    expect(protocolLabel(42)).toBe("42");
  });

  it("count attached adapters and their sessions per protocol from every session table at each scrape", async () => {
    const before = {
      adapters: await metricValue("iot_registry_adapters", { protocol: "coap" }),
      sessions: await metricValue("iot_registry_sessions", { protocol: "coap" }),
    };
    const a = new SessionTable();
    const b = new SessionTable();
    a.attach(link("coap-1", 2));
    b.attach(link("coap-2", 2));
    a.open("coap-1", session("s1", 1));
    a.open("coap-1", session("s2", 1));
    b.open("coap-2", session("s3", 2));
    expect(await metricValue("iot_registry_adapters", { protocol: "coap" })).toBe(before.adapters + 2);
    expect(await metricValue("iot_registry_sessions", { protocol: "coap" })).toBe(before.sessions + 3);
    a.close("coap-1", "s1");
    b.detach(link("other", 2)); // not the attached link: nothing changes
    expect(await metricValue("iot_registry_sessions", { protocol: "coap" })).toBe(before.sessions + 2);
    a.detach(a.route(1)!);
    expect(await metricValue("iot_registry_adapters", { protocol: "coap" })).toBe(before.adapters + 1);
    expect(await metricValue("iot_registry_sessions", { protocol: "coap" })).toBe(before.sessions + 1);
  });

  it("count failed statements by engine, telling constraint violations from other errors", async () => {
    const of = (engine: string, kind: string) => metricValue("iot_database_errors_total", { engine, kind });
    const before = [
      await of("postgres", "constraint"),
      await of("postgres", "other"),
      await of("sqlite", "constraint"),
    ];
    countDatabaseError("postgres", Object.assign(new Error("dup"), { code: "23505" }));
    countDatabaseError("postgres", Object.assign(new Error("gone"), { code: "57P01" }));
    const log = databaseErrorLog("sqlite");
    log({ level: "query" });
    log({ level: "error", error: Object.assign(new Error("unique"), { code: "SQLITE_CONSTRAINT_UNIQUE" }) });
    expect([
      await of("postgres", "constraint"),
      await of("postgres", "other"),
      await of("sqlite", "constraint"),
    ]).toEqual([before[0]! + 1, before[1]! + 1, before[2]! + 1]);
  });
});
