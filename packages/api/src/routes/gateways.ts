import { z } from "zod";
import {
  createGateway,
  deleteGateways,
  getGateway,
  listControlLogs,
  listDeviceEvents,
  listGateways,
  updateGateway,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { gateway } from "../forms/gateways.js";
import { event, gatewayControlLog } from "../forms/logs.js";
import { idParam, idsFrom, idsQuery, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { gatewayCreateBody, gatewayEditBody } from "./device-bodies.js";
import { listOf } from "../forms/common.js";
import { gatewayRecords } from "../forms/gateways.js";
import { logRecords } from "../forms/logs.js";

/**
 * Gateways: the spec shows list and detail; create, edit and delete are
 * designed like devices (credentials, product, gatewayProtocol,
 * upLinkNetwork, upLinkProtocol). A gateway's devices: GET /devices?gateway=<id>.
 */
export function gatewayRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Gateways")
    .get(
      "/gateways",
      {
        summary: "List gateways",
        response: listOf(gatewayRecords.list),
        query: listQuery({ gatewayName_like: z.string().optional() }),
      },
      async (c, { query: q }) =>
        list(await listGateways(db, c.get("caller"), pageFrom(q), { gatewayNameLike: q.gatewayName_like }), (g) =>
          gateway(g, "list", c.get("view")),
        ),
    )
    .get("/gateways/:id", { summary: "Gateway detail", response: gatewayRecords.detail }, async (c) =>
      gateway(await getGateway(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/gateways",
      { summary: "Create a gateway", body: gatewayCreateBody, response: gatewayRecords.write },
      async (c, { body }) => gateway(await createGateway(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/gateways/:id",
      { summary: "Edit a gateway", body: gatewayEditBody, response: gatewayRecords.write },
      async (c, { body }) => {
        const r = await updateGateway(db, c.get("caller"), idParam(c), body);
        if (r.revoke) deps.sessions.kick(r.device.id, r.revoke);
        return gateway(r.device, "write", c.get("view"));
      },
    )
    .delete(
      "/gateways",
      { summary: "Delete gateways (REFERENCED_ERROR while devices are under them)", query: idsQuery },
      async (c, { query }) => {
        for (const id of await deleteGateways(db, c.get("caller"), idsFrom(query)))
          deps.sessions.kick(id, "gateway deleted");
      },
    )
    .get(
      "/gateways/:id/events",
      {
        summary: "Uplink messages of a gateway and those it relayed",
        query: listQuery({}),
        response: listOf(logRecords.event[deps.form].extend({ gatewayName: z.string() })),
      },
      async (c, { query }) => {
        const g = await getGateway(db, c.get("caller"), idParam(c));
        const r = await listDeviceEvents(db, c.get("caller"), pageFrom(query), { gatewayIntId: g.id });
        return list(r, (e) => {
          const { deviceName, ...rest } = event(e, c.get("view"));
          return { ...rest, gatewayName: g.deviceName, deviceName };
        });
      },
    )
    .get(
      "/gateways/:id/control_logs",
      {
        summary: "Commands sent to a gateway, as gateway control logs (payload an object)",
        query: listQuery({}),
        response: listOf(logRecords.gatewayControl),
      },
      async (c, { query }) => {
        const g = await getGateway(db, c.get("caller"), idParam(c));
        return list(
          await listControlLogs(db, c.get("caller"), pageFrom(query), { deviceIntId: g.id }),
          gatewayControlLog,
        );
      },
    ).app;
}
