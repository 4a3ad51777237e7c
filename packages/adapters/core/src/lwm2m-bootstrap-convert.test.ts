import { AuthenticateResponseSchema, create } from "@iot/proto";
import { describe, expect, it } from "vitest";
import { lwm2mBootstrapOf } from "./lwm2m-bootstrap-convert.js";

describe("LwM2M bootstrap settings from the registry's answer", () => {
  it("takes fields 19-22 when any is set, and nothing when none is", () => {
    const set = create(AuthenticateResponseSchema, { lwm2mSecurityMode: "psk", lwm2mLifetime: 90 });
    expect(lwm2mBootstrapOf(set)).toEqual({
      lwm2mBootstrap: { securityMode: "psk", serverUri: "", lifetime: 90, binding: "" },
    });
    expect(lwm2mBootstrapOf(create(AuthenticateResponseSchema, {}))).toEqual({});
  });
});
