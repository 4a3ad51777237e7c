import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";

/** The key in-process requests (`app.request` in tests, no socket) share. */
const UNKNOWN_ADDRESS = "local";

/**
 * The client's IP address as the socket sees it (proxy headers are not
 * trusted: anyone can forge them). Requests without a Node socket, such as
 * `app.request` in tests, all get UNKNOWN_ADDRESS.
 */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? UNKNOWN_ADDRESS;
  } catch {
    return UNKNOWN_ADDRESS;
  }
}
