/** `devices_export` → `DevicesExport`: each `_`- or `-`-separated word capitalised. */
const pascal = (segment: string) =>
  segment
    .split(/[_-]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/**
 * A stable, readable OpenAPI `operationId` derived from the method and path, so every operation has one without
 * anyone writing it and a generated client's method names follow the URLs: `GET /devices` → `listDevices`,
 * `GET /devices/:id` → `getDevices`, `GET /devices/:id/events` → `listDevicesEvents`, `POST /devices` →
 * `createDevices`, `PUT` → `update…`, `DELETE` → `delete…`. Routes whose name says better pass their own.
 */
export function operationIdOf(method: "get" | "post" | "put" | "delete", path: string): string {
  const segments = path.split("/").filter(Boolean);
  const nouns = segments.filter((s) => !s.startsWith(":")).map(pascal);
  const item = segments.at(-1)?.startsWith(":") ?? false;
  const verb = { get: item ? "get" : "list", post: "create", put: "update", delete: "delete" }[method];
  return `${verb}${nouns.join("")}`;
}
