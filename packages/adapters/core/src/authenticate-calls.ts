/**
 * The registry client's device checks: devices that connect at about the same time are checked together (CallBatcher),
 * on the Connect stream when its registry answers there (AuthenticateCall), else in one AuthenticateBatch call, or one
 * Authenticate call each when the node does not know AuthenticateBatch.
 */
import {
  create,
  grpc,
  AuthenticateBatchRequestSchema,
  type AdapterMessage,
  type AuthenticateAnswer,
  type AuthenticateBatchResponse,
  type AuthenticateRequest,
  type AuthenticateResponse,
} from "@iot/proto";
import type { Logger } from "pino";
import { CallBatcher } from "./call-batcher.js";
import { authenticateCallMessage, fromAuthenticateResponse } from "./grpc-convert.js";
import { unaryCall, type RawRegistryClient } from "./registry-grpc-calls.js";
import type { AuthOutcome, GiveUpSignal } from "./registry-client.js";
import { StreamAnswers } from "./stream-answers.js";

/** What the device checks need from the client; times in ms. */
export interface AuthenticateCallsOptions {
  /** The gRPC client of the node in use. */
  readonly raw: () => RawRegistryClient;
  /**
   * Writes a message on the Connect stream when its registry answers AuthenticateCall there (its HelloAck said so):
   * true once written; undefined when there is no such stream now.
   */
  readonly streamWriter: () => ((message: AdapterMessage) => boolean) | undefined;
  readonly log: Logger;
  /** Deadline of one call once sent (a stream call's answer too); waiting for a slot does not count. */
  readonly timeoutMs: number;
  /** Most calls in flight at once. */
  readonly concurrency: number;
  /** Most devices in one call; while one is in flight, another leaves only with a quarter of them. */
  readonly batchMax: number;
  /** Least time between two calls that leave because none is in flight. */
  readonly gapMs: number;
}

/** Device checks batched into calls to the registry, answered in request order. */
export class AuthenticateCalls {
  /** AuthenticateCalls sent on the stream, waiting for their answers (`authenticateAnswer` settles them). */
  readonly streamAnswers: StreamAnswers<AuthenticateAnswer>;
  private readonly batcher: CallBatcher<AuthenticateRequest, AuthOutcome>;
  /** The node answered AuthenticateBatch UNIMPLEMENTED (an older registry): one Authenticate call per device. */
  private batchUnsupported = false;

  constructor(private readonly opts: AuthenticateCallsOptions) {
    this.streamAnswers = new StreamAnswers(opts.timeoutMs);
    this.batcher = new CallBatcher(
      (reqs) => this.call(reqs),
      opts.concurrency,
      opts.batchMax,
      Math.ceil(opts.batchMax / 4),
      opts.gapMs,
    );
  }

  /** Devices waiting for their turn to be checked (not yet in a call). */
  get waiting(): number {
    return this.batcher.waiting;
  }

  /** The outcome of one device's check; rejects when the registry could not answer. */
  run(req: AuthenticateRequest, signal?: GiveUpSignal): Promise<AuthOutcome> {
    return this.batcher.run(req, signal);
  }

  /** Checks the devices of one batch; rejects when the registry could not answer. */
  private async call(reqs: AuthenticateRequest[]): Promise<AuthOutcome[]> {
    const write = this.opts.streamWriter();
    if (write) {
      const { id, answer } = this.streamAnswers.open();
      if (!write(authenticateCallMessage(id, reqs))) this.streamAnswers.fail(id, new Error("stream write failed"));
      const res = await answer;
      if (res.error) throw new Error(res.error);
      return outcomesOf(res.responses, reqs.length);
    }
    if (!this.batchUnsupported) {
      try {
        const res = await unaryCall<AuthenticateBatchResponse>(this.opts.timeoutMs, (md, options, cb) =>
          this.opts
            .raw()
            .authenticateBatch(create(AuthenticateBatchRequestSchema, { requests: reqs }), md, options, cb),
        );
        return outcomesOf(res.responses, reqs.length);
      } catch (err) {
        if ((err as Partial<grpc.ServiceError>).code !== grpc.status.UNIMPLEMENTED) throw err;
        this.batchUnsupported = true;
        this.opts.log.info("registry does not take AuthenticateBatch; authenticating one device per call");
      }
    }
    return Promise.all(
      reqs.map((req) =>
        unaryCall<AuthenticateResponse>(this.opts.timeoutMs, (md, options, cb) =>
          this.opts.raw().authenticate(req, md, options, cb),
        ).then(fromAuthenticateResponse),
      ),
    );
  }
}

/** One outcome per device asked about, in order. */
function outcomesOf(responses: readonly AuthenticateResponse[], asked: number): AuthOutcome[] {
  if (responses.length !== asked) throw new Error(`registry answered ${responses.length} of ${asked} authentications`);
  return responses.map(fromAuthenticateResponse);
}
