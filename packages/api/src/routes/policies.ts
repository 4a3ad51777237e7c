import { z } from "zod";
import {
  bindPolicyDevices,
  createPolicy,
  deletePolicies,
  deviceIdsByPolicy,
  getPolicy,
  listPolicies,
  listPolicyDevices,
  MAX_BIND_IDS,
  notJoinedPolicyDevices,
  topicFilterProblem,
  unbindPolicyDevices,
  updatePolicy,
  type Policy,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { accessCodes, accessIn, bindableDevice, policy, policyDevice } from "../forms/policies.js";
import { codeField, idParam, idsFrom, idsQuery, intField, listQuery, pageFrom, pageOf } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { bindableDeviceRecord, policyDeviceRecord, policyRecords } from "../forms/policies.js";
import { withDeviceIds } from "./with-device-ids.js";

/**
 * An MQTT topic filter relative to the device (`+` a whole level, `#` the whole last level; no leading `$`, no NUL, ≤
 * 1024 bytes).
 */
export const topicFilterField = z.string().superRefine((topic, ctx) => {
  const problem = topicFilterProblem(topic);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
const description = z.string().max(300, "at most 300 characters").nullish();
/** `access` in the deployment's form, stored as the Form 1 code. */
const access = (form: "1" | "2") => codeField(accessCodes(form)).transform((code) => accessIn(code, form));
const allow = codeField([0, 1]);

const createBody = (form: "1" | "2") =>
  z.strictObject({ name, topic: topicFilterField, access: access(form), allow, description });

/** Edits carry the whole record; read-only members (id, userIntID, dates, labels, mqtt_acl, createUser) are dropped. */
const editBody = (form: "1" | "2") =>
  z.object({
    name: name.optional(),
    topic: topicFilterField.optional(),
    access: access(form).optional(),
    allow: allow.optional(),
    description,
  });

/** Device ids to bind to a policy; the spec marks the member optional (none binds nothing). */
const devicesBody = z.strictObject({
  devicesIntID: z.array(intField).max(MAX_BIND_IDS, `at most ${MAX_BIND_IDS} device ids`).optional(),
});

const like = z.string().optional();

/** Policies: list, detail, create, edit, delete, and the devices bound to each. */
export function policyRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  /** Lists and details carry `mqtt_acl`: the bound devices' ids. */
  const withDevices = (items: Policy[], tenantId: string) =>
    withDeviceIds(items, (ids) => deviceIdsByPolicy(db, tenantId, ids));
  return new ApiRouter(docs, "Policies")
    .get(
      "/policies",
      {
        summary: "List publish/subscribe policies",
        response: listOf(policyRecords.list),
        query: listQuery({ name_like: like }),
      },
      async (c, { query: q }) => {
        const caller = c.get("caller");
        const r = await listPolicies(db, caller, pageFrom(q), { nameLike: q.name_like });
        return list({ ...r, items: await withDevices(r.items, caller.tenantId) }, (p) =>
          policy(p, "list", c.get("view")),
        );
      },
    )
    .get("/policies/:id", { summary: "Policy detail", response: policyRecords.detail }, async (c) => {
      const caller = c.get("caller");
      const [p] = await withDevices([await getPolicy(db, caller, idParam(c))], caller.tenantId);
      return policy(p!, "detail", c.get("view"));
    })
    .post(
      "/policies",
      {
        summary: "Create a policy (topic is an MQTT filter relative to the device)",
        body: createBody(deps.form),
        response: policyRecords.write,
      },
      async (c, { body }) => policy(await createPolicy(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/policies/:id",
      {
        summary: "Edit a policy; live devices bound to it get the new rule at once",
        body: editBody(deps.form),
        response: policyRecords.write,
      },
      async (c, { body }) => {
        const caller = c.get("caller");
        const edited = await updatePolicy(db, caller, idParam(c), body);
        await deps.live.policiesEdited(caller.tenantId, [edited.id]).catch(deps.logError);
        return policy(edited, "write", c.get("view"));
      },
    )
    .delete(
      "/policies",
      { summary: "Delete policies (REFERENCED_ERROR while bound to devices)", query: idsQuery },
      async (c, { query }) => {
        await deletePolicies(db, c.get("caller"), idsFrom(query));
      },
    )
    .get(
      "/policies/:id/devices",
      { summary: "Devices bound to a policy", query: listQuery({}), response: listOf(policyDeviceRecord) },
      async (c, { query }) =>
        list(await listPolicyDevices(db, c.get("caller"), idParam(c), pageFrom(query)), (d) =>
          policyDevice(d, c.get("view")),
        ),
    )
    .post(
      "/policies/:id/devices",
      {
        summary: "Bind devices to a policy; answers the bound devices",
        body: devicesBody,
        response: listOf(policyDeviceRecord),
      },
      async (c, { body }) => {
        const id = idParam(c);
        await bindPolicyDevices(db, c.get("caller"), id, body.devicesIntID ?? []);
        await deps.live.policiesChanged(body.devicesIntID ?? []).catch(deps.logError);
        return list(await listPolicyDevices(db, c.get("caller"), id, pageOf(c)), (d) => policyDevice(d, c.get("view")));
      },
    )
    .delete(
      "/policies/:id/devices",
      { summary: "Unbind devices from a policy", query: idsQuery },
      async (c, { query }) => {
        await unbindPolicyDevices(db, c.get("caller"), idParam(c), idsFrom(query));
        await deps.live.policiesChanged(idsFrom(query)).catch(deps.logError);
      },
    )
    .get(
      "/broker_select/policies/:id/not_joined_devices",
      {
        summary: "Devices not bound to the policy yet",
        response: listOf(bindableDeviceRecord),
        query: listQuery({ deviceName_like: like, groupName_like: like, productName_like: like }),
      },
      async (c, { query: q }) => {
        const filter = {
          deviceNameLike: q.deviceName_like,
          groupNameLike: q.groupName_like,
          productNameLike: q.productName_like,
        };
        return list(await notJoinedPolicyDevices(db, c.get("caller"), idParam(c), pageFrom(q), filter), bindableDevice);
      },
    ).app;
}
