import type { Caller, CommandRouter, SessionTable, Store } from "@iot/registry";

/** Everything the REST API needs, handed in by the composition root. */
export interface AppDeps {
  store: Store;
  /** HMAC secret that signs bearer tokens. */
  tokenSecret: string;
  /** Bearer token lifetime, seconds. */
  tokenTtlSeconds: number;
  sessions: SessionTable;
  commands: CommandRouter;
  nodeId: string;
  /** Record form of the whole API (1 or 2). */
  form: "1" | "2";
  startedAt: number;
  /** Called with unexpected errors (the answer is a bare INTERNAL_ERROR). */
  logError: (err: unknown) => void;
}

/** Hono environment: the authenticated caller travels in the context. */
export interface Env {
  Variables: { caller: Caller };
}
