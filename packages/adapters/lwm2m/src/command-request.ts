import type { ClientRequest } from "@iot/adapter-coap";
import { CONTENT_FORMAT } from "./codec/content-format.js";
import { encodeWrite } from "./codec/content.js";
import { ok, type Result } from "./codec/result.js";
import type { Lwm2mCommand } from "./command.js";

/** Uri-Path segments of a canonical object path under the client's alternate root (`/lwm2m`, or `/`). */
export function requestPath(rootPath: string, path: string): string[] {
  const root = rootPath === "/" ? [] : rootPath.slice(1).split("/");
  return [...root, ...path.slice(1).split("/")];
}

/**
 * The CoAP request a command becomes (OMA-TS-LightweightM2M-V1_0 §8.2.4, table 23; Core V1_1 §8.2.5): Read GET with
 * Accept, Discover GET Accept 40, Write PUT, Execute POST with the arguments as text, Write-Attributes PUT with
 * the attributes as Uri-Query and no payload, Observe GET with Observe 0, Create POST to the object, Delete DELETE.
 * `format` is the client's {@link preferredFormat}. Cancel-observe has no request of its own (the observation's
 * token is needed): the caller cancels the observation.
 */
export function commandRequest(command: Lwm2mCommand, rootPath: string, format: number): Result<ClientRequest> {
  const path = requestPath(rootPath, command.path);
  switch (command.msgType) {
    case "read":
    case "cancel-observe":
      return ok({ method: "GET", path, accept: format });
    case "observe":
      return ok({ method: "GET", path, accept: format, observe: 0 });
    case "discover":
      return ok({ method: "GET", path, accept: CONTENT_FORMAT.linkFormat });
    case "delete":
      return ok({ method: "DELETE", path });
    case "execute":
      return ok({ method: "POST", path, ...(command.args === undefined ? {} : { payload: command.args }) });
    case "write-attr":
      return ok({ method: "PUT", path, query: command.attributes });
    case "write":
    case "create": {
      if (command.values.length === 0) return ok({ method: "POST", path });
      const payload = encodeWrite(format, command.path, command.values);
      if (!payload.ok) return payload;
      return ok({
        method: command.msgType === "write" ? "PUT" : "POST",
        path,
        payload: payload.value,
        contentFormat: format,
      });
    }
  }
}
