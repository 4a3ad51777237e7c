/**
 * modbus-serial's client and TCP server, typed. The package is CommonJS whose types declare an ES default export;
 * under NodeNext the default import is the whole CommonJS module, whose `default` is the client class again.
 */
import modbusSerial from "modbus-serial";

/** The modbus-serial master (one per link). */
export const ModbusClient = modbusSerial.default;
/** A modbus-serial master instance. */
export type ModbusClient = InstanceType<typeof ModbusClient>;
/** modbus-serial's Modbus TCP slave server (tests and the benchmark run slaves with it). */
export const ModbusServerTCP = modbusSerial.ServerTCP;
export type { IServiceVector } from "modbus-serial";
