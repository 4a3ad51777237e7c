import type { paths } from "../api-types.js";
import { answer, CliError, dynamicCall, type AnswerOf, type ApiClient } from "../client.js";
import type { SimDevice } from "./sim-protocol.js";

/** The cloudProtocol codes a product takes. */
export type CloudProtocol = Extract<
  paths["/api/v1/products"]["post"]["requestBody"]["content"]["application/json"]["cloudProtocol"],
  number
>;

/** A device as the API answers it (its token only to callers that may see secrets). */
type DeviceRecord = AnswerOf<"/api/v1/devices", "POST">;

/** The simulated device of a device record: fails for a caller that is shown no tokens (a viewer). */
function simDevice(d: DeviceRecord): SimDevice {
  if (d.token === undefined) throw new CliError("the API shows this caller no device tokens: log in as an operator");
  return { ...d, token: d.token };
}

/** The tenant's product named `name`, created with `cloudProtocol` when there is none. */
export async function simProduct(client: ApiClient, name: string, cloudProtocol: CloudProtocol): Promise<string> {
  const products = await answer(
    client.GET("/api/v1/products", { params: { query: { productName_like: name, _limit: "1000" } } }),
  );
  const found = products.items.find((p) => p.productName === name);
  if (found) return found.productID;
  const created = await answer(client.POST("/api/v1/products", { body: { productName: name, cloudProtocol } }));
  return created.productID;
}

/** The product's data point `dataPointID`, created from `body` when the product has none by that id. */
export async function simDataPoint(
  client: ApiClient,
  productID: string,
  body: { dataPointID: string } & Record<string, unknown>,
): Promise<void> {
  const points = await answer(client.GET("/api/v1/data_points", { params: { query: { productID, _limit: "1000" } } }));
  if (points.items.some((p) => p.dataPointID === body.dataPointID)) return;
  await dynamicCall(client, "POST", "/api/v1/data_points", { body: { productID, ...body } });
}

/**
 * Devices `<prefix><i>` of the product, i < n: the ones that exist are reused, the others created with `body(i)`
 * added to their creation body.
 */
export async function simDevices(
  client: ApiClient,
  productID: string,
  prefix: string,
  n: number,
  body: (i: number) => Record<string, unknown>,
): Promise<SimDevice[]> {
  const existing = new Map<string, SimDevice>();
  for (let page = 1; existing.size < n; page++) {
    const r = await answer(
      client.GET("/api/v1/devices", {
        params: { query: { productID, deviceName_like: prefix, _limit: "1000", _page: String(page) } },
      }),
    );
    for (const d of r.items) existing.set(d.deviceName, simDevice(d));
    if (r.items.length < 1000) break;
  }
  const devices: SimDevice[] = [];
  for (let i = 0; i < n; i++) {
    const deviceName = `${prefix}${i}`;
    devices.push(
      existing.get(deviceName) ??
        simDevice(
          await dynamicCall(client, "POST", "/api/v1/devices", {
            body: { productID, deviceName, ...body(i) },
          }),
        ),
    );
  }
  return devices;
}
