// The webhook sender thread's entry (see webhook-sender-thread.ts): plain JavaScript, so Node loads it without help,
// then tsx loads the TypeScript (the services run under `node --import tsx`, whose hooks do not reach workers).
import { register } from "tsx/esm/api";

register();
await import("./webhook-sender-worker.ts");
