import { z } from "zod";
import type { Policy, PolicyDevice } from "@iot/registry";
import type { View } from "../view.js";
import { f, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Access codes a form accepts: Form 1 1 publish, 2 subscribe, 3 both; Form 2 one less (0, 1, 2). */
export const accessCodes = (form: "1" | "2"): readonly number[] => (form === "1" ? [1, 2, 3] : [0, 1, 2]);

/** A stored (Form 1) access code as the form shows it. */
const accessOut = (code: number, form: "1" | "2"): number => (form === "1" ? code : code - 1);

/** An access code sent in the form, as stored (Form 1). */
export const accessIn = (code: number, form: "1" | "2"): number => (form === "1" ? code : code + 1);

const write = z.object({
  id: f.int,
  name: f.str,
  topic: f.str,
  access: f.int,
  allow: f.int,
  description: f.strN,
  userIntID: f.int,
  createAt: f.date,
  updateAt: f.date,
});
const listed = write.extend({ accessLabel: f.label, allowLabel: f.label, mqtt_acl: f.ids });

/** Policy records by shape (access codes in the form's numbering), devices bound and bindable. */
export const policyRecords = {
  write,
  list: listed,
  detail: listed.extend({ createUser: f.strN }),
} satisfies Record<Shape, z.ZodType>;
export const policyDeviceRecord = z.object({ id: f.int, deviceID: f.str, deviceName: f.str, deviceTypeLabel: f.label });
export const bindableDeviceRecord = z.object({ id: f.int, deviceName: f.str, productName: f.str });

/**
 * Policy record. Lists and details add the labels and `mqtt_acl` (the ids of
 * the devices bound to the policy, as `{id}`); details add `createUser`;
 * create/edit answers carry the stored record only.
 */
export function policy<S extends Shape>(
  p: Policy & { deviceIds?: number[] },
  shape: S,
  view: View,
): ShapeOf<typeof policyRecords, S>;
export function policy(p: Policy & { deviceIds?: number[] }, shape: Shape, view: View): RecordOf<typeof policyRecords> {
  const base = {
    id: p.id,
    name: p.name,
    topic: p.topic,
    access: accessOut(p.access, view.form),
    allow: p.allow,
    description: p.description,
    userIntID: p.userIntId,
    createAt: formatDate(p.createAt),
    updateAt: formatDate(p.updateAt),
  };
  if (shape === "write") return base;
  const listed = {
    ...base,
    accessLabel: label("access", p.access, view.lang),
    allowLabel: label("allow", p.allow, view.lang),
    mqtt_acl: (p.deviceIds ?? []).map((id) => ({ id })),
  };
  return shape === "list" ? listed : { ...listed, createUser: p.createUser };
}

/** A device bound to a policy: `{deviceID, deviceName, deviceTypeLabel, id}`. */
export function policyDevice(d: PolicyDevice, view: View): z.output<typeof policyDeviceRecord> {
  return {
    id: d.id,
    deviceID: d.deviceId,
    deviceName: d.deviceName,
    deviceTypeLabel: label("deviceType", d.deviceType, view.lang),
  };
}

/** A device a policy can still be bound to: `{deviceName, id, productName}`. */
export function bindableDevice(d: PolicyDevice): z.output<typeof bindableDeviceRecord> {
  return { id: d.id, deviceName: d.deviceName, productName: d.productName };
}
