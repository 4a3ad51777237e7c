import type { Rec } from "../api.ts";
import { FORM } from "../deployment.ts";
import type { FormField, FormSubmit } from "../form.tsx";
import { t } from "../i18n.ts";
import type { Resource } from "../resource.tsx";

/** What a group command sends: its payload and whether each member must acknowledge it (group publish, schedules). */
export const GROUP_COMMAND = (): FormField[] => [
  { name: "payload", label: t("payload") },
  {
    name: "needAck",
    label: t("needAck"),
    kind: "select",
    options: [
      [0, t("no")],
      [1, t("yes")],
    ],
  },
];

/** When a schedule runs: 0 once at crontabTime, 1 every IntervalMinute minutes, 2 by a cron expression (UTC). */
const TIMING = (): FormField[] => [
  { name: "scheduleName", label: t("name") },
  {
    name: "scheduleType",
    label: t("scheduleType"),
    kind: "select",
    options: [
      [0, t("once")],
      [1, t("everyMinutes")],
      [2, "cron"],
    ],
  },
  {
    name: "crontabTime",
    label: `${t("runAt")} (UTC)`,
    placeholder: "YYYY-MM-DD HH:MM:SS",
    when: (b) => Number(b.scheduleType) === 0,
  },
  { name: "IntervalMinute", label: t("intervalMinutes"), kind: "number", when: (b) => Number(b.scheduleType) === 1 },
  {
    name: "cronExpression",
    label: "cron (UTC)",
    placeholder: "*/5 * * * *",
    when: (b) => Number(b.scheduleType) === 2,
  },
];

const when = (s: Rec) =>
  s.scheduleType === 0 ? s.crontabTime : s.scheduleType === 1 ? `${String(s.IntervalMinute)} min` : s.cronExpression;

/** Columns both schedule lists share. */
const columns = (target: (s: Rec) => unknown) => [
  { label: t("name"), cell: (s: Rec) => s.scheduleName, sort: "scheduleName" },
  { label: t("target"), cell: target },
  { label: t("payload"), cell: (s: Rec) => <code class="payload">{s.payload}</code> },
  { label: t("scheduleType"), cell: when },
  { label: t("nextRun"), cell: (s: Rec) => s.nextRunAt ?? "—", sort: "nextRunAt" },
  { label: t("lastRun"), cell: (s: Rec) => s.lastRunAt ?? "—", sort: "lastRunAt" },
  {
    label: t("lastResult"),
    cell: (s: Rec) =>
      s.lastResult ? (s.lastResult.error ?? s.lastResult.publishStatus ?? s.lastResult.status ?? "") : "—",
  },
];

/** The Form 1 integer id of the record picked by its string id (`deviceID` → `deviceIntID`). */
const withIntID =
  (field: string, intField: string) =>
  ({ body, records }: FormSubmit): Rec => {
    if (FORM === "2") return body;
    const picked = records(field).find((r) => r[field] === body[field]);
    return picked ? { ...body, [intField]: picked.id } : body;
  };

/** Commands sent to a device once, every N minutes or by cron (docs/schedules.md); not edited, only deleted. */
export const deviceSchedules: Resource = {
  route: "/schedules",
  api: "/device_schedule_publish",
  testId: "schedule",
  title: () => t("deviceSchedules"),
  newLabel: () => t("newSchedule"),
  editLabel: () => t("newSchedule"),
  editable: false,
  list: () => ({
    refreshMs: 10_000,
    liveTypes: ["command_result"],
    columns: columns((s) => s.deviceName ?? s.deviceID),
  }),
  fields: () => [
    {
      name: "deviceID",
      label: t("devices"),
      kind: "select",
      optionsFrom: { path: "/devices?_limit=1000", value: "deviceID", label: "deviceName" },
    },
    { name: "topic", label: `${t("topic")} (inbox)`, placeholder: "inbox" },
    { name: "payload", label: t("payload") },
    ...TIMING(),
  ],
  initial: () => ({ deviceID: "", scheduleName: "", scheduleType: 1, IntervalMinute: 60, payload: "" }),
  toBody: withIntID("deviceID", "deviceIntID"),
};

/** Commands sent to every device of a group on a schedule. */
export const groupSchedules: Resource = {
  route: "/group_schedules",
  api: "/group_schedule_publish",
  testId: "group-schedule",
  title: () => t("groupSchedules"),
  newLabel: () => t("newSchedule"),
  editLabel: () => t("newSchedule"),
  editable: false,
  list: () => ({ refreshMs: 10_000, liveTypes: ["command_result"], columns: columns((s) => s.groupName ?? s.groupID) }),
  fields: () => [
    {
      name: "groupID",
      label: t("groups"),
      kind: "select",
      optionsFrom: { path: "/groups?_limit=1000", value: "groupID", label: "groupName" },
    },
    ...GROUP_COMMAND(),
    ...TIMING(),
  ],
  initial: () => ({ groupID: "", scheduleName: "", scheduleType: 1, IntervalMinute: 60, payload: "", needAck: 0 }),
  toBody: withIntID("groupID", "groupIntID"),
};
