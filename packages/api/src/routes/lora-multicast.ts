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

/** McAddr, keys and optional counter, data rate and frequency of a group's LoRaWAN multicast session. */
const body = z.strictObject({
  mcAddr: hex(8),
  mcNwkSKey: hex(32),
  mcAppSKey: hex(32),
  mcFCntDown: z.number().int().min(0).max(0xffffffff, "at most 4294967295").optional(),
  dataRate: z.number().int().min(0).max(15, "a region data rate index 0..15").nullish(),
  frequency: z.number().int().min(100_000_000, "Hz, 100 MHz..1 GHz").max(1_000_000_000, "Hz, 100 MHz..1 GHz").nullish(),
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
            mcNwkSKey: b.mcNwkSKey,
            mcAppSKey: b.mcAppSKey,
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
