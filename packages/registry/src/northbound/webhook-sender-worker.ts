// The entry of the webhook sender thread (see WebhookSenderThread): sends each delivery it is given with sendDelivery
// and answers its result under the same id.
import { parentPort } from "node:worker_threads";
import { sendDelivery, type Delivery } from "./webhook-sender.js";

/** One delivery to send, as the dispatcher's thread posts it. */
export interface SendRequest {
  id: number;
  delivery: Delivery;
  timeoutMs: number;
  allowPrivate: boolean;
}

parentPort?.on("message", (m: SendRequest) => {
  void sendDelivery(m.delivery, m.timeoutMs, m.allowPrivate).then((result) =>
    parentPort?.postMessage({ id: m.id, result }),
  );
});
