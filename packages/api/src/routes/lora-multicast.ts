import { z } from "zod";
import { deleteLoraMulticast, getLoraMulticast, putLoraMulticast, type LoraMulticast } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { f } from "../forms/common.js";
import { formatDate } from "../forms/dates.js";
import { idParam } from "../params.js";
import { ApiRouter } from "../router.js";
import type { View } from "../view.js";

const hex = (digits: number) =>
  z.string().regex(new RegExp(`^[0-9A-Fa-f]{${digits}}$`), `must be ${digits} hex digits`);

/**
 * McAddr, the session keys (McNwkSKey and McAppSKey) or the McKey they derive from, and the optional counter, data
 * rate and frequency of a group's LoRaWAN multicast session.
 */
const body = z
  .strictObject({
    mcAddr: hex(8),
    mcNwkSKey: hex(32).optional(),
    mcAppSKey: hex(32).optional(),
    mcKey: hex(32).optional().describe("the group's McKey (TS005): McNwkSKey and McAppSKey are derived from it"),
    mcFCntDown: z.number().int().min(0).max(0xffffffff, "at most 4294967295").optional(),
    dataRate: z.number().int().min(0).max(15, "a region data rate index 0..15").nullish(),
    frequency: z
      .number()
      .int()
      .min(100_000_000, "Hz, 100 MHz..1 GHz")
      .max(1_000_000_000, "Hz, 100 MHz..1 GHz")
      .nullish(),
  })
  .superRefine((b, ctx) => {
    if (b.mcKey !== undefined && (b.mcNwkSKey !== undefined || b.mcAppSKey !== undefined))
      ctx.addIssue({ code: "custom", path: ["mcKey"], message: "give mcKey or mcNwkSKey and mcAppSKey, not both" });
    if (b.mcKey !== undefined) return;
    for (const key of ["mcNwkSKey", "mcAppSKey"] as const)
      if (b[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: "required (or give mcKey)" });
  });

/** The session as answered: keys only to callers who may see secrets (not viewers), as device LoRa keys. */
const record = z.object({
  groupIntID: f.int,
  mcAddr: f.str,
  mcNwkSKey: f.str.optional(),
  mcAppSKey: f.str.optional(),
  mcFCntDown: f.int.describe("the McFCntDown of the next multicast downlink"),
  dataRate: f.intN.describe("null: the region's RX2 data rate"),
  frequency: f.intN.describe("Hz; null: the region's RX2 frequency"),
  createAt: f.date,
  updateAt: f.date,
});

function multicastRecord(m: LoraMulticast, view: View): z.output<typeof record> {
  return {
    groupIntID: m.groupIntId,
    mcAddr: m.mcAddr,
    ...(view.secrets ? { mcNwkSKey: m.nwkSessionKey, mcAppSKey: m.appSessionKey } : {}),
    mcFCntDown: m.fcntDown,
    dataRate: m.dataRate,
    frequency: m.frequency,
    createAt: formatDate(m.createAt),
    updateAt: formatDate(m.updateAt),
  };
}

/**
 * A group's LoRaWAN multicast session (docs/devices/lorawan.md): with one, a group command goes to the group's class
 * C devices as one multicast downlink per gateway instead of one per device.
 */
export function loraMulticastRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const path = "/groups/:id/lora-multicast";
  return new ApiRouter(docs, "Groups")
    .get(path, { summary: "A group's LoRaWAN multicast session", response: record }, async (c) =>
      multicastRecord(await getLoraMulticast(db, c.get("caller"), idParam(c)), c.get("view")),
    )
    .put(
      path,
      {
        summary: "Provision or replace a LoRa group's multicast session (McAddr, McNwkSKey, McAppSKey)",
        body,
        response: record,
      },
      async (c, { body: b }) =>
        multicastRecord(
          await putLoraMulticast(db, c.get("caller"), idParam(c), {
            mcAddr: b.mcAddr,
            keys: b.mcKey !== undefined ? { mcKey: b.mcKey } : { mcNwkSKey: b.mcNwkSKey!, mcAppSKey: b.mcAppSKey! },
            fcntDown: b.mcFCntDown,
            dataRate: b.dataRate,
            frequency: b.frequency,
          }),
          c.get("view"),
        ),
    )
    .delete(path, { summary: "End a group's LoRaWAN multicast session" }, async (c) => {
      await deleteLoraMulticast(db, c.get("caller"), idParam(c));
    }).app;
}
