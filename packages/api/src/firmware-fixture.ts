/** Test support (not a test file): LwM2M products and firmware uploads for the firmware API's tests. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDevices, createProduct, type Caller } from "@iot/registry";
import type { TestApp } from "./test-app.js";

/** A fresh firmware folder. */
export const firmwareDir = () => mkdtempSync(join(tmpdir(), "firmwares-"));

/**
 * An LwM2M product (cloudProtocol 3) of the tenant of the user with `userIntId`, made in the store (Form 2 creates
 * MQTT products only); answers its productID.
 */
export async function lwm2mProduct(t: TestApp, userIntId: number, productName = "Meters"): Promise<string> {
  return (await createProduct(t.store.db, await callerOf(t, userIntId), { productName, cloudProtocol: 3 })).productId;
}

/** An LwM2M device of a product, made in the store (Form 2 has no IMEI member); answers its deviceID. */
export async function lwm2mDevice(t: TestApp, userIntId: number, productId: string, imei: string): Promise<string> {
  const [outcome] = await createDevices(t.store.db, await callerOf(t, userIntId), [
    { productId, deviceName: `lwm2m-${imei}`, authType: 1, upLinkSystem: 1, imei, autoSub: 0 },
  ]);
  if (!outcome || "error" in outcome) throw new Error(`device not created: ${JSON.stringify(outcome)}`);
  const row = await t.store.db.selectFrom("devices").select("deviceId").where("id", "=", outcome.id).executeTakeFirst();
  return row!.deviceId;
}

/** The admin caller of the user with `userIntId`. */
async function callerOf(t: TestApp, userIntId: number): Promise<Caller> {
  const user = await t.store.db.selectFrom("users").selectAll().where("id", "=", userIntId).executeTakeFirstOrThrow();
  return { userIntId, username: user.username, tenantId: user.tenantId, role: "admin", serviceAdmin: false };
}

/** The multipart body of `POST /firmwares`: the fields given and, when given, the file. */
export function firmwareForm(fields: Record<string, string>, bytes?: Uint8Array): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (bytes) form.set("file", new Blob([new Uint8Array(bytes)]), "image.bin");
  return form;
}

/** Uploads a package as the caller of `token`: its status and JSON answer. */
export async function uploadFirmware(t: TestApp, token: string, fields: Record<string, string>, bytes?: Uint8Array) {
  const res = await t.app.request("/api/v1/firmwares", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: firmwareForm(fields, bytes),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}
