import type { ObjectPath } from "./object-path.js";
import type { ResourceType } from "./typed-value.js";

/**
 * The object models the codecs need to type values that arrive untyped (TLV bytes, plain text, CBOR): the LwM2M core
 * objects 0–7 as the OMA LwM2M registry defines them (1.0 resources plus the 1.1 additions of the Server object),
 * and the IPSO objects 3200–3203 and 3300–3350 by name, whose resources are the registry's reusable resources
 * (5500–5999), which mean the same in every object. Anything else (vendor objects, resources not listed) has no
 * type: the codecs then keep TLV and opaque values as hex strings and plain text as its text, and SenML and OMA JSON
 * values as the format typed them. The Security object (0) is listed by name only: a server never reads it.
 */

/** Operations a resource allows: R read, W write, RW both, E execute. */
export type Operations = "R" | "W" | "RW" | "E";

/** One resource definition. */
export interface ResourceModel {
  readonly id: number;
  readonly name: string;
  readonly type: ResourceType;
  readonly operations: Operations;
  /** Whether the resource has instances (`/3/0/7/0`, `/3/0/7/1`). */
  readonly multiple: boolean;
}

/** One object definition. */
export interface ObjectModel {
  readonly id: number;
  readonly name: string;
  /** Whether the object may have several instances. */
  readonly multipleInstances: boolean;
  /** Resources by id; empty for IPSO objects, whose resources come from {@link REUSABLE_RESOURCES}. */
  readonly resources: ReadonlyMap<number, ResourceModel>;
}

/** Where the codecs look a resource's definition up; the adapter may pass its own (loaded from data files). */
export type ResourceLookup = (objectId: number, resourceId: number) => ResourceModel | undefined;

type Row = [id: number, name: string, type: ResourceType, operations: Operations, multiple?: boolean];

const resources = (rows: Row[]): ReadonlyMap<number, ResourceModel> =>
  new Map(rows.map(([id, name, type, operations, multiple = false]) => [id, { id, name, type, operations, multiple }]));

const object = (id: number, name: string, multipleInstances: boolean, rows: Row[] = []): ObjectModel => ({
  id,
  name,
  multipleInstances,
  resources: resources(rows),
});

const CORE: ObjectModel[] = [
  object(0, "LWM2M Security", true),
  object(1, "LwM2M Server", true, [
    [0, "Short Server ID", "integer", "R"],
    [1, "Lifetime", "integer", "RW"],
    [2, "Default Minimum Period", "integer", "RW"],
    [3, "Default Maximum Period", "integer", "RW"],
    [4, "Disable", "none", "E"],
    [5, "Disable Timeout", "integer", "RW"],
    [6, "Notification Storing When Disabled or Offline", "boolean", "RW"],
    [7, "Binding", "string", "RW"],
    [8, "Registration Update Trigger", "none", "E"],
    [9, "Bootstrap-Request Trigger", "none", "E"],
    [10, "APN Link", "objlnk", "RW"],
    [11, "TLS-DTLS Alert Code", "unsignedInteger", "R"],
    [12, "Last Bootstrapped", "time", "R"],
    [13, "Registration Priority Order", "unsignedInteger", "RW"],
    [14, "Initial Registration Delay Timer", "unsignedInteger", "RW"],
    [15, "Registration Failure Block", "boolean", "RW"],
    [16, "Bootstrap on Registration Failure", "boolean", "RW"],
    [17, "Communication Retry Count", "unsignedInteger", "RW"],
    [18, "Communication Retry Timer", "unsignedInteger", "RW"],
    [19, "Communication Sequence Delay Timer", "unsignedInteger", "RW"],
    [20, "Communication Sequence Retry Count", "unsignedInteger", "RW"],
    [21, "Trigger", "boolean", "RW"],
    [22, "Preferred Transport", "string", "RW"],
    [23, "Mute Send", "boolean", "RW"],
  ]),
  object(2, "LwM2M Access Control", true, [
    [0, "Object ID", "integer", "R"],
    [1, "Object Instance ID", "integer", "R"],
    [2, "ACL", "integer", "RW", true],
    [3, "Access Control Owner", "integer", "RW"],
  ]),
  object(3, "Device", false, [
    [0, "Manufacturer", "string", "R"],
    [1, "Model Number", "string", "R"],
    [2, "Serial Number", "string", "R"],
    [3, "Firmware Version", "string", "R"],
    [4, "Reboot", "none", "E"],
    [5, "Factory Reset", "none", "E"],
    [6, "Available Power Sources", "integer", "R", true],
    [7, "Power Source Voltage", "integer", "R", true],
    [8, "Power Source Current", "integer", "R", true],
    [9, "Battery Level", "integer", "R"],
    [10, "Memory Free", "integer", "R"],
    [11, "Error Code", "integer", "R", true],
    [12, "Reset Error Code", "none", "E"],
    [13, "Current Time", "time", "RW"],
    [14, "UTC Offset", "string", "RW"],
    [15, "Timezone", "string", "RW"],
    [16, "Supported Binding and Modes", "string", "R"],
    [17, "Device Type", "string", "R"],
    [18, "Hardware Version", "string", "R"],
    [19, "Software Version", "string", "R"],
    [20, "Battery Status", "integer", "R"],
    [21, "Memory Total", "integer", "R"],
    [22, "ExtDevInfo", "objlnk", "R", true],
  ]),
  object(4, "Connectivity Monitoring", false, [
    [0, "Network Bearer", "integer", "R"],
    [1, "Available Network Bearer", "integer", "R", true],
    [2, "Radio Signal Strength", "integer", "R"],
    [3, "Link Quality", "integer", "R"],
    [4, "IP Addresses", "string", "R", true],
    [5, "Router IP Addresses", "string", "R", true],
    [6, "Link Utilization", "integer", "R"],
    [7, "APN", "string", "R", true],
    [8, "Cell ID", "integer", "R"],
    [9, "SMNC", "integer", "R"],
    [10, "SMCC", "integer", "R"],
    [11, "SignalSNR", "integer", "R"],
    [12, "LAC", "integer", "R"],
  ]),
  object(5, "Firmware Update", false, [
    [0, "Package", "opaque", "W"],
    [1, "Package URI", "string", "RW"],
    [2, "Update", "none", "E"],
    [3, "State", "integer", "R"],
    [4, "Update Supported Objects", "boolean", "RW"],
    [5, "Update Result", "integer", "R"],
    [6, "PkgName", "string", "R"],
    [7, "PkgVersion", "string", "R"],
    [8, "Firmware Update Protocol Support", "integer", "R", true],
    [9, "Firmware Update Delivery Method", "integer", "R"],
  ]),
  object(6, "Location", false, [
    [0, "Latitude", "float", "R"],
    [1, "Longitude", "float", "R"],
    [2, "Altitude", "float", "R"],
    [3, "Radius", "float", "R"],
    [4, "Velocity", "opaque", "R"],
    [5, "Timestamp", "time", "R"],
    [6, "Speed", "float", "R"],
  ]),
  object(7, "Connectivity Statistics", false, [
    [0, "SMS Tx Counter", "integer", "R"],
    [1, "SMS Rx Counter", "integer", "R"],
    [2, "Tx Data", "integer", "R"],
    [3, "Rx Data", "integer", "R"],
    [4, "Max Message Size", "integer", "R"],
    [5, "Average Message Size", "integer", "R"],
    [6, "Start", "none", "E"],
    [7, "Stop", "none", "E"],
    [8, "Collection Period", "integer", "RW"],
  ]),
];

const IPSO_NAMES: [number, string][] = [
  [3200, "Digital Input"],
  [3201, "Digital Output"],
  [3202, "Analog Input"],
  [3203, "Analog Output"],
  [3300, "Generic Sensor"],
  [3301, "Illuminance"],
  [3302, "Presence"],
  [3303, "Temperature"],
  [3304, "Humidity"],
  [3305, "Power Measurement"],
  [3306, "Actuation"],
  [3308, "Set Point"],
  [3310, "Load Control"],
  [3311, "Light Control"],
  [3312, "Power Control"],
  [3313, "Accelerometer"],
  [3314, "Magnetometer"],
  [3315, "Barometer"],
  [3316, "Voltage"],
  [3317, "Current"],
  [3318, "Frequency"],
  [3319, "Depth"],
  [3320, "Percentage"],
  [3321, "Altitude"],
  [3322, "Load"],
  [3323, "Pressure"],
  [3324, "Loudness"],
  [3325, "Concentration"],
  [3326, "Acidity"],
  [3327, "Conductivity"],
  [3328, "Power"],
  [3329, "Power Factor"],
  [3330, "Distance"],
  [3331, "Energy"],
  [3332, "Direction"],
  [3333, "Time"],
  [3334, "Gyrometer"],
  [3335, "Colour"],
  [3336, "Location"],
  [3337, "Positioner"],
  [3338, "Buzzer"],
  [3339, "Audio Clip"],
  [3340, "Timer"],
  [3341, "Addressable Text Display"],
  [3342, "On/Off switch"],
  [3343, "Dimmer"],
  [3344, "Up/Down Control"],
  [3345, "Multiple Axis Joystick"],
  [3346, "Rate"],
  [3347, "Push button"],
  [3348, "Multi-state Selector"],
  [3349, "Bitmap"],
  [3350, "Stopwatch"],
];

/** Every object this table knows, by id. */
export const OBJECTS: ReadonlyMap<number, ObjectModel> = new Map(
  [...CORE, ...IPSO_NAMES.map(([id, name]) => object(id, name, true))].map((o) => [o.id, o]),
);

/**
 * The reusable resources of the OMA registry (IPSO 5500–5999) that the IPSO objects above use, with the types the
 * registry gives them. Units follow the registry: Sensor Value in the units of 5701, On Time in s, Dimmer in %.
 */
export const REUSABLE_RESOURCES: ReadonlyMap<number, ResourceModel> = resources([
  [5500, "Digital Input State", "boolean", "R"],
  [5501, "Digital Input Counter", "integer", "R"],
  [5502, "Digital Input Polarity", "boolean", "RW"],
  [5503, "Digital Input Debounce", "integer", "RW"],
  [5504, "Digital Input Edge Selection", "integer", "RW"],
  [5505, "Digital Input Counter Reset", "none", "E"],
  [5506, "Current Time", "time", "RW"],
  [5507, "Fractional Time", "float", "RW"],
  [5508, "Min X Value", "float", "R"],
  [5509, "Max X Value", "float", "R"],
  [5510, "Min Y Value", "float", "R"],
  [5511, "Max Y Value", "float", "R"],
  [5512, "Min Z Value", "float", "R"],
  [5513, "Max Z Value", "float", "R"],
  [5518, "Timestamp", "time", "R"],
  [5521, "Delay Duration", "float", "RW"],
  [5523, "Trigger", "none", "E"],
  [5524, "Duration", "float", "RW"],
  [5525, "Minimum Off-time", "float", "RW"],
  [5526, "Timer Mode", "integer", "RW"],
  [5527, "Text", "string", "RW"],
  [5528, "X Coordinate", "integer", "RW"],
  [5529, "Y Coordinate", "integer", "RW"],
  [5530, "Clear Display", "none", "E"],
  [5531, "Contrast", "float", "RW"],
  [5532, "Increase Input State", "boolean", "R"],
  [5533, "Decrease Input State", "boolean", "R"],
  [5534, "Counter", "integer", "R"],
  [5536, "Current Position", "float", "RW"],
  [5537, "Transition Time", "float", "RW"],
  [5538, "Remaining Time", "float", "R"],
  [5541, "Up Counter", "integer", "R"],
  [5542, "Down Counter", "integer", "R"],
  [5543, "Digital State", "boolean", "R"],
  [5544, "Cumulative Time", "float", "RW"],
  [5545, "Max X Coordinate", "integer", "R"],
  [5546, "Max Y Coordinate", "integer", "R"],
  [5547, "Multi-state Input", "integer", "R"],
  [5548, "Level", "float", "RW"],
  [5550, "Digital Output State", "boolean", "RW"],
  [5551, "Digital Output Polarity", "boolean", "RW"],
  [5600, "Analog Input Current Value", "float", "R"],
  [5601, "Min Measured Value", "float", "R"],
  [5602, "Max Measured Value", "float", "R"],
  [5603, "Min Range Value", "float", "R"],
  [5604, "Max Range Value", "float", "R"],
  [5605, "Reset Min and Max Measured Values", "none", "E"],
  [5650, "Analog Output Current Value", "float", "RW"],
  [5700, "Sensor Value", "float", "R"],
  [5701, "Sensor Units", "string", "R"],
  [5702, "X Value", "float", "R"],
  [5703, "Y Value", "float", "R"],
  [5704, "Z Value", "float", "R"],
  [5705, "Compass Direction", "float", "R"],
  [5706, "Colour", "string", "RW"],
  [5750, "Application Type", "string", "RW"],
  [5751, "Sensor Type", "string", "R"],
  [5800, "Instantaneous active power", "float", "R"],
  [5801, "Min Measured active power", "float", "R"],
  [5802, "Max Measured active power", "float", "R"],
  [5803, "Min Range active power", "float", "R"],
  [5804, "Max Range active power", "float", "R"],
  [5805, "Cumulative active power", "float", "R"],
  [5820, "Power factor", "float", "R"],
  [5821, "Current Calibration", "float", "RW"],
  [5850, "On/Off", "boolean", "RW"],
  [5851, "Dimmer", "integer", "RW"],
  [5852, "On time", "integer", "RW"],
  [5853, "Multi-state Output", "string", "RW"],
  [5900, "Set Point Value", "float", "RW"],
]);

/** The definition of an object, when the table has it. */
export function objectModel(objectId: number): ObjectModel | undefined {
  return OBJECTS.get(objectId);
}

/**
 * The definition of a resource: the object's own, else (for any object but the core ones, whose ids are their own)
 * the reusable resource of that id; undefined when neither knows it.
 */
export const resourceModel: ResourceLookup = (objectId, resourceId) => {
  const own = OBJECTS.get(objectId)?.resources.get(resourceId);
  if (own !== undefined || objectId <= 7) return own;
  return REUSABLE_RESOURCES.get(resourceId);
};

/** The data type at a resource or resource-instance path, when known; undefined above resource level or unknown. */
export function resourceType(path: ObjectPath, lookup: ResourceLookup = resourceModel): ResourceType | undefined {
  return path.resourceId === undefined ? undefined : lookup(path.objectId, path.resourceId)?.type;
}
