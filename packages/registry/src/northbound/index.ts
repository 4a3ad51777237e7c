export * from "./events.js";
export * from "./url-guard.js";
export * from "./webhooks.js";
export * from "./webhook-sender.js";
export * from "./webhook-dispatcher.js";
export * from "./webhook-test.js";
export * from "./outbox-pruner.js";
export * from "./nats-bridge.js";
