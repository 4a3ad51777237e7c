import { describe, expect, it } from "vitest";
import { AuthenticateResponseSchema, create, fromBinary, toBinary } from "@iot/proto";
import type { AuthOutcome } from "../domain/auth-outcome.js";
import { admittedAnswer, authOutcomeToProto } from "./convert.js";

const admitted = (lora: boolean): Extract<AuthOutcome, { ok: true }> => ({
  ok: true,
  device: {
    tenantId: "t1",
    deviceIntId: 42,
    deviceId: "dev-42",
    deviceName: "Gerät 42",
    productIntId: 7,
    productId: "p7",
    protocol: 1,
    mountpoint: "t1/42/",
    defaultDownlinkTopic: "inbox",
    deviceType: -1,
    isGateway: true,
    autoSub: false,
  },
  policies: [{ id: 3, topic: "up/#", access: 1, allow: true }],
  subscriptions: [{ topic: "cmd/+", qos: 1 }],
  credentialStamp: "t:abc",
  ...(lora
    ? {
        lora: {
          activation: "otaa" as const,
          devEui: "0011223344556677",
          appEui: "",
          appKey: "k",
          canJoin: true,
          fcntCheck: 2,
          region: "EU868",
          classC: false,
          session: null,
          usedDevNonces: [1, 2],
        },
      }
    : {}),
});

describe("admittedAnswer", () => {
  it("is the answer protobuf-es's create makes from the outcome, a LoRa device's too, and encodes the same", () => {
    for (const lora of [false, true]) {
      const o = admitted(lora);
      const limits = { tenantId: "t1", maxUplinkRate: 50 };
      const made = create(AuthenticateResponseSchema, {
        ...authOutcomeToProto(o),
        sessionId: "s-1",
        tenantLimits: limits,
      });
      const answer = admittedAnswer(o, "s-1", limits);
      expect(answer).toStrictEqual(made);
      expect(fromBinary(AuthenticateResponseSchema, toBinary(AuthenticateResponseSchema, answer))).toStrictEqual(made);
    }
  });
});
