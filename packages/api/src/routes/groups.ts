import { z } from "zod";
import {
  addGroupDevices,
  createGroup,
  deleteGroups,
  deviceIdsByGroup,
  getGroup,
  listGroupDevices,
  listGroups,
  notJoinedDevices,
  removeGroupDevices,
  updateGroup,
  type Caller,
  type Group,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { device } from "../forms/devices.js";
import { group } from "../forms/groups.js";
import { idParam, idsFrom, idsQuery, intField, listQuery, pageFrom, pageOf } from "../params.js";
import { ApiRouter } from "../router.js";
import type { View } from "../view.js";
import { listOf } from "../forms/common.js";
import { deviceRecords } from "../forms/devices.js";
import { groupRecords } from "../forms/groups.js";
import { withDeviceIds } from "./with-device-ids.js";

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
const productID = z.string().trim().min(1, "required").max(50, "at most 50 characters");
/** Form 1: optional; Form 2: required on create and, when sent on edit, not empty. */
const description = (form: "1" | "2") =>
  form === "1"
    ? z.string().max(300, "at most 300 characters").nullish()
    : z.string().trim().min(1, "required").max(300, "at most 300 characters");

const createBody = (form: "1" | "2") =>
  z
    .strictObject({ productID, groupName: name, description: description(form) })
    .transform((b) => ({ productId: b.productID, groupName: b.groupName, description: b.description }));

/**
 * Edits carry the whole record; read-only fields (id, groupID, counts, devices, joined names) are accepted and ignored.
 */
const editBody = (form: "1" | "2") =>
  z
    .object({
      groupName: name.optional(),
      description: form === "1" ? description(form) : description(form).optional(),
      productID: productID.optional(),
    })
    .transform((b) => ({ groupName: b.groupName, description: b.description, productId: b.productID }));

/** Device ids of a membership change: 1 to 1000 integers (digit strings allowed). */
const membersBody = z.strictObject({
  ids: z.array(intField).min(1, "at least one device id").max(1000, "at most 1000 device ids"),
});

/** Groups: list, detail, create, edit, delete, and their member devices. The product is fixed at creation. */
export function groupRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const records = groupRecords[deps.form];
  const members = listOf(deviceRecords[deps.form].list);
  /** Form 2 records list their member devices' ids. */
  const withDevices = async (items: Group[], caller: Caller, view: View) =>
    view.form === "1" ? items : withDeviceIds(items, (ids) => deviceIdsByGroup(db, caller.tenantId, ids));
  return new ApiRouter(docs, "Groups")
    .get(
      "/groups",
      {
        summary: "List groups",
        response: listOf(records.list),
        query: listQuery({ groupName_like: z.string().optional(), groupID_like: z.string().optional() }),
      },
      async (c, { query: q }) => {
        const caller = c.get("caller");
        const r = await listGroups(db, caller, pageFrom(q), {
          groupNameLike: q.groupName_like,
          groupIdLike: q.groupID_like,
        });
        return list({ ...r, items: await withDevices(r.items, caller, c.get("view")) }, (g) =>
          group(g, "list", c.get("view")),
        );
      },
    )
    .get("/groups/:id", { summary: "Group detail", response: records.detail }, async (c) => {
      const [g] = await withDevices([await getGroup(db, c.get("caller"), idParam(c))], c.get("caller"), c.get("view"));
      return group(g!, "detail", c.get("view"));
    })
    .post(
      "/groups",
      { summary: "Create a group of one product's devices", body: createBody(deps.form), response: records.write },
      async (c, { body }) => group(await createGroup(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/groups/:id",
      { summary: "Edit a group (its productID cannot change)", body: editBody(deps.form), response: records.write },
      async (c, { body }) => group(await updateGroup(db, c.get("caller"), idParam(c), body), "write", c.get("view")),
    )
    .delete(
      "/groups",
      { summary: "Delete groups (REFERENCED_ERROR while they have member devices)", query: idsQuery },
      async (c, { query }) => {
        await deleteGroups(db, c.get("caller"), idsFrom(query));
      },
    )
    .get(
      "/groups/:id/devices",
      { summary: "Member devices of a group", query: listQuery({}), response: members },
      async (c, { query }) =>
        list(await listGroupDevices(db, c.get("caller"), idParam(c), pageFrom(query)), (d) =>
          device(d, "list", c.get("view")),
        ),
    )
    .post(
      "/groups/:id/devices",
      {
        summary: "Add devices of the group's product to a group; answers the member list",
        body: membersBody,
        response: members,
      },
      async (c, { body }) => {
        const id = idParam(c);
        await addGroupDevices(db, c.get("caller"), id, body.ids);
        return list(await listGroupDevices(db, c.get("caller"), id, pageOf(c)), (d) =>
          device(d, "list", c.get("view")),
        );
      },
    )
    .delete(
      "/groups/:id/devices",
      { summary: "Remove devices from a group", query: idsQuery },
      async (c, { query }) => {
        await removeGroupDevices(db, c.get("caller"), idParam(c), idsFrom(query));
      },
    )
    .get(
      "/broker_select/groups/:id/not_joined_devices",
      {
        summary: "Devices of the group's product not in the group, for a select box",
        response: z.array(z.object({ label: z.string(), value: z.number().int() })),
      },
      async (c) =>
        (await notJoinedDevices(db, c.get("caller"), idParam(c))).map((d) => ({ label: d.deviceName, value: d.id })),
    ).app;
}
