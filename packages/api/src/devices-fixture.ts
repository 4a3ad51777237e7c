/** Test support (not a test file): the calls the Form 1 device and gateway tests make as the admin. */
import type { TestApp } from "./test-app.js";

/**
 * Calls as the admin of the app and token that `app()` answers, read at each call: the tests open the app in a
 * beforeAll, after these helpers are made.
 */
export function adminCalls(app: () => { t: TestApp; token: string }) {
  /** Calls the API as the admin. */
  const call = (method: string, path: string, body?: unknown) => app().t.call(method, path, body, app().token);
  /** Creates a product of a cloud protocol (named `p<protocol>`) and answers its productID. */
  const product = async (cloudProtocol: number) =>
    (await call("POST", "/products", { productName: `p${cloudProtocol}`, cloudProtocol })).body.productID as string;
  /** Creates a Modbus gateway (Ethernet, key auth) of a product and answers its record. */
  const gatewayOf = async (productID: string, name = "gw") =>
    (
      await call("POST", "/gateways", {
        productID,
        gatewayName: name,
        gatewayProtocol: 7,
        upLinkNetwork: 4,
        authType: 1,
      })
    ).body as { id: number };
  return { call, product, gatewayOf };
}
