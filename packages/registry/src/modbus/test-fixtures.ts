/**
 * Test support (not a test file): a Modbus gateway with two slaves of a Modbus product, each point kind once, on a
 * fresh store of an engine, plus a SessionTable and CommandRouter, and a fake Modbus adapter link that records what
 * the registry sends it.
 */
import type { EngineUnderTest } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createProduct } from "../domain/products.js";
import { createDevice } from "../domain/devices.js";
import { createGateway } from "../domain/gateways.js";
import { createDataPoint } from "../domain/data-points.js";
import { SessionTable, type AdapterLink, type DownlinkCommand } from "../sessions/session-table.js";
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

/** A Modbus adapter stream that records the downlinks sent down it; `open` reports a device's session open. */
export function fakeModbusAdapter(sessions: SessionTable, instanceId = "modbus-1") {
  const sent: Array<Omit<DownlinkCommand, "payload"> & { payload: string }> = [];
  const kicks: Array<{ deviceIntId: number; reason: string }> = [];
  const link: AdapterLink = {
    instanceId,
    protocol: 7,
    version: "t",
    attachedAt: 0,
    sendDownlink: (c) => sent.push({ ...c, payload: Buffer.from(c.payload).toString("utf8") }),
    kick: (deviceIntId, reason) => kicks.push({ deviceIntId, reason }),
    updatePolicies: () => {},
    updateSubscriptions: () => {},
  };
  sessions.attach(link);
  const open = (deviceIntId: number) =>
    sessions.open(instanceId, {
      sessionId: `s-${deviceIntId}-${sent.length}`,
      credentialStamp: "",
      deviceIntId,
      tenantId: "t",
      clientIp: "",
      keepAlive: 0,
      openedAt: 0,
    });
  return { link, sent, kicks, open };
}
