/**
 * Test support (not a test file): a Modbus gateway with two slaves of a Modbus product, each point kind once, on a
 * fresh store of an engine, plus a SessionTable and CommandRouter, and a fake Modbus adapter link.
 */
import type { EngineUnderTest } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createProduct } from "../domain/products.js";
import { createDevice } from "../domain/devices.js";
import { createGateway } from "../domain/gateways.js";
import { createDataPoint } from "../domain/data-points.js";
import { SessionTable } from "../sessions/session-table.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { CommandRouter } from "../router/commands.js";

export async function modbusFleet(engine: EngineUnderTest) {
  const { db, caller, other } = await twoTenants(engine);
  const sessions = new SessionTable();
  const commands = new CommandRouter(db, sessions, 60_000);
  const product = await createProduct(db, caller, { productName: "Meters", cloudProtocol: 7 });
  const gatewayProduct = await createProduct(db, caller, { productName: "Edge boxes", cloudProtocol: 7 });
  const gateway = await createGateway(db, caller, {
    productId: gatewayProduct.productId,
    deviceName: "boiler room",
    deviceId: "gw-1",
    deviceUsername: "gw-1-user",
    token: "gw-1-token-secret",
    authType: 1,
    gatewayProtocol: 7,
    channel: JSON.stringify({ chntype: "tcp", tcphost: "10.0.0.20", tcpport: 1502, pollInterval: 2000 }),
  });
  const point = (dataPointId: string, fields: Record<string, unknown>) =>
    createDataPoint(db, caller, {
      productIntId: product.id,
      dataPointName: dataPointId,
      dataPointId,
      dataTransType: 1,
      pointDataType: 25,
      ...fields,
    });
  await point("temp", { registerAddr: "300001", upperLimit: 150, lowerLimit: -40 });
  await point("setpoint", { registerAddr: "400010", dataTransType: 3, upperLimit: 90, lowerLimit: 10 });
  await point("pump", { registerAddr: "000001", pointDataType: 23, binarySize: 0, dataTransType: 2 });
  const slave = (modBusIndex: number, extra: Record<string, unknown> = {}) =>
    createDevice(db, caller, {
      productId: product.productId,
      deviceName: `meter ${modBusIndex}`,
      deviceId: `meter-${modBusIndex}`,
      upLinkSystem: 2,
      gateway: gateway.id,
      authType: 1,
      modBusIndex,
      ...extra,
    });
  return { db, caller, other, sessions, commands, product, gatewayProduct, gateway, point, slave };
}

/** A Modbus adapter stream that records the downlinks and kicks sent down it. */
export const fakeModbusAdapter = (sessions: SessionTable, instanceId = "modbus-1") =>
  fakeAdapterLink(sessions, instanceId, 7);
