/**
 * What happens around the devices' traffic while the soak runs, in ticks: devices dropping their connection and
 * reconnecting, devices created, blocked and deleted through REST, commands to devices and groups, schedules, device
 * imports and exports, a webhook receiver and an SSE reader, and every so often a kill -9 of a random process,
 * started again as a supervisor would. Each counts what it did and what failed; REST calls made while the central
 * node is down fail and are tried again at the next tick.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SoakFleet } from "./fleet.js";
import type { SoakPlan } from "./settings.js";
import type { Traffic } from "./traffic.js";

/** What the churn did, for the report. */
export interface ChurnCounts {
  reconnects: number;
  created: number;
  blocked: number;
  deleted: number;
  commands: number;
  groupPublishes: number;
  imported: number;
  exported: number;
  webhookDeliveries: number;
  sseEvents: number;
  sseReconnects: number;
  restFailures: number;
  kills: { name: string; atMs: number; downMs: number }[];
}

export interface Churn {
  readonly counts: ChurnCounts;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startChurn(
  s: SoakFleet,
  plan: SoakPlan,
  traffic: Traffic,
  startedAt: number,
  log: (line: string) => void,
): Promise<Churn> {
  const counts: ChurnCounts = {
    reconnects: 0,
    created: 0,
    blocked: 0,
    deleted: 0,
    commands: 0,
    groupPublishes: 0,
    imported: 0,
    exported: 0,
    webhookDeliveries: 0,
    sseEvents: 0,
    sseReconnects: 0,
    restFailures: 0,
    kills: [],
  };
  const api = async (method: string, path: string, body?: unknown) => {
    try {
      const r = await s.f.api(method, path, body);
      if (r.status >= 300) counts.restFailures++;
      return r;
    } catch {
      counts.restFailures++; // the central node is down: tried again at the next tick
      return { status: 0, body: null };
    }
  };
  /** A setup call, which must succeed. */
  const setup = async (method: string, path: string, body: unknown) => {
    const r = await s.f.api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const mqttLoads = traffic.loads.filter((l) => l.client);
  const group = (await setup("POST", "/groups", {
    productID: traffic.productIDs.mqtt,
    groupName: "soak",
    description: "soak",
  })) as { id: number; groupID: string };
  await setup("POST", `/groups/${group.id}/devices`, { ids: mqttLoads.map((l) => l.device.id) });
  // Schedules: one device command and one group command every minute, for the whole run.
  await setup("POST", "/device_schedule_publish", {
    deviceID: mqttLoads[0]!.device.deviceID,
    payload: "scheduled",
    scheduleName: "soak device",
    scheduleType: 1,
    IntervalMinute: 1,
  });
  await setup("POST", "/group_schedule_publish", {
    groupID: group.groupID,
    payload: "scheduled group",
    needAck: 1,
    scheduleName: "soak group",
    scheduleType: 1,
    IntervalMinute: 1,
  });
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      counts.webhookDeliveries++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  await setup("POST", "/webhooks", {
    webhookName: "soak",
    secret: "soak-webhook-secret-0123",
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    eventTypes: ["uplink", "online", "offline"],
    deviceIDs: mqttLoads.slice(0, 2).map((l) => l.device.deviceID),
  });
  let stopping = false;
  const sse = readStream(s, mqttLoads[0]!.device.deviceID, counts, () => stopping);

  let tick = 0;
  let made = 0;
  const tickOnce = async () => {
    // 10 % of the MQTT devices a minute drop their connection (mqtt.js reconnects and resends what was in flight).
    const drops = Math.max(1, Math.round((mqttLoads.length * plan.reconnectShare * plan.tickMs) / 60_000));
    for (let i = 0; i < drops; i++) {
      const l = mqttLoads[(tick * drops + i) % mqttLoads.length]!;
      l.client!.stream.destroy();
      l.reconnects++;
      counts.reconnects++;
    }
    // Devices created, blocked and deleted through REST.
    const ids: number[] = [];
    for (let i = 0; i < plan.restChurnPerTick; i++) {
      const r = await api("POST", "/devices", {
        productID: traffic.productIDs.mqtt,
        deviceName: `soak-churn-${made++}`,
        deviceType: 1,
        upLinkSystem: 1,
        authType: 1,
      });
      if (r.status === 201) {
        counts.created++;
        ids.push(r.body.id);
      }
    }
    for (const id of ids) if ((await api("PUT", `/devices/${id}`, { blocked: 1 })).status === 200) counts.blocked++;
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      if ((await api("DELETE", `/devices?ids=${chunk.join(",")}`)).status < 300) counts.deleted += chunk.length;
    }
    // Commands: a few MQTT devices, an LwM2M read (waits for the device's next Update), a group.
    for (let i = 0; i < 3; i++) {
      const l = mqttLoads[(tick * 3 + i) % mqttLoads.length]!;
      if (
        (await api("POST", "/device_publish", { deviceID: l.device.deviceID, payload: `cmd-${tick}-${i}` })).status ===
        201
      )
        counts.commands++;
    }
    const lw = traffic.lwm2m[tick % traffic.lwm2m.length];
    if (lw) {
      const payload = JSON.stringify({ reqID: `r${tick}`, msgType: "read", data: { path: "/3303/0/5700" } });
      if ((await api("POST", "/device_publish", { deviceID: lw.device.deviceID, payload })).status === 201)
        counts.commands++;
    }
    if (
      (await api("POST", "/group_publish", { groupID: group.groupID, payload: `group-${tick}`, needAck: 1 })).status ===
      201
    )
      counts.groupPublishes++;
    // Once a minute: an import of a few devices, an export of all, and the imported ones deleted again.
    if (tick % Math.max(1, Math.round(60_000 / plan.tickMs)) === 0) await importExport(tick);
    tick++;
  };
  const taskDone = async (statusUrl: string) => {
    for (let i = 0; i < 100; i++) {
      const r = await api("GET", statusUrl);
      if (r.status === 200 && r.body.status >= 3) return r.body.status === 3;
      await sleep(100);
    }
    return false;
  };
  const importExport = async (k: number) => {
    const csv = ["deviceName,product"]
      .concat(Array.from({ length: 20 }, (_, i) => `soak-import-${k}-${i},${traffic.productIDs.mqtt}`))
      .join("\n");
    const started = await fetch(`${s.apiBase}/api/v1/devices_import`, {
      method: "POST",
      headers: { "content-type": "text/csv", authorization: await bearer() },
      body: csv,
    }).catch(() => undefined);
    const link = started?.status === 202 ? ((await started.json()) as { statusUrl: string }) : undefined;
    if (!link) counts.restFailures++;
    if (link && (await taskDone(link.statusUrl))) counts.imported += 20;
    const found = await api("GET", `/devices?deviceName_like=soak-import-${k}-&_limit=100`);
    const ids = ((found.body?.items ?? []) as { id: number }[]).map((d) => d.id);
    if (ids.length) await api("DELETE", `/devices?ids=${ids.join(",")}`);
    const exp = await api("GET", "/devices_export");
    if (exp.status === 202 && (await taskDone(exp.body.statusUrl))) {
      const taskID = (exp.body.statusUrl as string).split("/").pop();
      const file = await fetch(`${s.apiBase}/api/v1/devices_export/${taskID}/file`, {
        headers: { authorization: await bearer() },
      }).catch(() => undefined);
      if (file?.ok && (await file.text()).startsWith("deviceName")) counts.exported++;
    }
  };
  /** The admin's bearer token for the calls `api` cannot make (a CSV body, a file). */
  const bearer = async () => {
    const r = await fetch(`${s.apiBase}/api/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: s.f.settings.IOT_ADMIN_PASSWORD }),
    });
    return `Bearer ${((await r.json()) as { token: string }).token}`;
  };

  const ticking = (async () => {
    while (!stopping) {
      const at = performance.now();
      await tickOnce().catch((err: Error) => log(`churn tick failed: ${err.message}`));
      await sleep(Math.max(0, plan.tickMs - (performance.now() - at)));
    }
  })();
  // A kill -9 every killEveryMs of a process picked at random: the central node or one of the adapters.
  const order = s.processes().map((p) => p.name);
  const killing = (async () => {
    let n = 0;
    while (!stopping) {
      const due = startedAt + (n + 1) * plan.killEveryMs;
      while (!stopping && performance.now() < due) await sleep(Math.min(1000, due - performance.now()));
      // None in the last two latency windows: the last is compared with the first, and a restart (up to 20 s on a
      // loaded machine) with the resends after it must be over before it starts.
      if (stopping || due > startedAt + plan.runMs - 2 * plan.windowMs) break;
      // A random order of all the processes, gone through in turn: each is killed once before any is killed twice.
      if (n % order.length === 0)
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
      const name = order[n % order.length]!;
      const downMs = await s.killAndRestart(name);
      counts.kills.push({ name, atMs: due - startedAt, downMs });
      log(`kill -9 ${name} at ${((due - startedAt) / 1000).toFixed(0)} s, back after ${downMs.toFixed(0)} ms`);
      n++;
    }
  })();
  return {
    counts,
    async stop() {
      stopping = true;
      await Promise.all([ticking, killing, sse]);
      await new Promise<void>((r) => receiver.close(() => r()));
    },
  };
}

/** Reads the live stream of `deviceID`'s uplinks for the whole run, reconnecting (Last-Event-ID) when it ends. */
async function readStream(s: SoakFleet, deviceID: string, counts: ChurnCounts, stopping: () => boolean) {
  let lastId = "";
  while (!stopping()) {
    try {
      const login = await s.f.api("POST", "/login", { username: "admin", password: s.f.settings.IOT_ADMIN_PASSWORD });
      const res = await fetch(`${s.apiBase}/api/v1/stream?eventTypes=uplink&deviceID=${deviceID}`, {
        headers: { authorization: `Bearer ${login.body.token}`, ...(lastId && { "last-event-id": lastId }) },
      });
      const reader = res.body!.getReader();
      let text = "";
      const decoder = new TextDecoder();
      // A read stays pending across the 1 s checks of `stopping`, so that no chunk is dropped.
      let pending = reader.read();
      while (!stopping()) {
        const r = await Promise.race([pending, sleep(1000).then(() => undefined)]);
        if (r === undefined) continue;
        if (r.done) break;
        pending = reader.read();
        const value = r.value;
        text += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = text.indexOf("\n\n")) >= 0) {
          const id = /^id:\s*(.+)$/m.exec(text.slice(0, at))?.[1];
          text = text.slice(at + 2);
          if (id) {
            lastId = id;
            counts.sseEvents++;
          }
        }
      }
      await reader.cancel().catch(() => {});
    } catch {
      // the central node is down
    }
    if (!stopping()) {
      counts.sseReconnects++;
      await sleep(500);
    }
  }
}
