import { z } from "zod";
import {
  bindDevicePolicies,
  deviceIdsByPolicy,
  listDevicePolicies,
  MAX_BIND_IDS,
  notJoinedPolicies,
  unbindDevicePolicies,
  type ListResult,
  type Policy,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { policy } from "../forms/policies.js";
import { idParam, idsFrom, idsQuery, intField, listQuery, pageFrom, pageOf } from "../params.js";
import { ApiRouter } from "../router.js";
import type { View } from "../view.js";
import { listOf } from "../forms/common.js";
import { policyRecords } from "../forms/policies.js";
import { withDeviceIds } from "./with-device-ids.js";

/** Policy ids to bind to a device: 1 to 1000 integers (digit strings allowed). */
const policiesBody = z.strictObject({
  ids: z.array(intField).min(1, "at least one policy id").max(MAX_BIND_IDS, `at most ${MAX_BIND_IDS} policy ids`),
});

/** The policies bound to a device and those it can still be bound to, as policy list records. */
export function devicePolicyRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const records = async (r: ListResult<Policy>, tenantId: string, view: View) => {
    const items = await withDeviceIds(r.items, (ids) => deviceIdsByPolicy(db, tenantId, ids));
    return list({ ...r, items }, (p) => policy(p, "list", view));
  };
  return new ApiRouter(docs, "Device policies")
    .get(
      "/devices/:id/policies",
      { summary: "Policies bound to a device", query: listQuery({}), response: listOf(policyRecords.list) },
      async (c, { query }) => {
        const caller = c.get("caller");
        return records(
          await listDevicePolicies(db, caller, idParam(c), pageFrom(query)),
          caller.tenantId,
          c.get("view"),
        );
      },
    )
    .post(
      "/devices/:id/policies",
      {
        summary: "Bind policies to a device; answers the device's policies",
        body: policiesBody,
        response: listOf(policyRecords.list),
      },
      async (c, { body }) => {
        const caller = c.get("caller");
        const id = idParam(c);
        await bindDevicePolicies(db, caller, id, body.ids);
        await deps.live.policiesChanged([id]).catch(deps.logError);
        return records(await listDevicePolicies(db, caller, id, pageOf(c)), caller.tenantId, c.get("view"));
      },
    )
    .delete(
      "/devices/:id/policies",
      { summary: "Unbind policies from a device", query: idsQuery },
      async (c, { query }) => {
        await unbindDevicePolicies(db, c.get("caller"), idParam(c), idsFrom(query));
        await deps.live.policiesChanged([idParam(c)]).catch(deps.logError);
      },
    )
    .get(
      "/broker_select/devices/:id/not_joined_policies",
      {
        summary: "Policies the device can still be bound to",
        query: listQuery({}),
        response: listOf(policyRecords.list),
      },
      async (c, { query }) => {
        const caller = c.get("caller");
        return records(
          await notJoinedPolicies(db, caller, idParam(c), pageFrom(query)),
          caller.tenantId,
          c.get("view"),
        );
      },
    ).app;
}
