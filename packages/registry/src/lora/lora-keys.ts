/** The LoRa lookup columns of a device (see migration 0010). */
export interface LoraKeys {
  loraDevEui: string | null;
  loraDevAddr: string | null;
}

/**
 * The lookup columns of a device of `protocol` with this deviceID and `lora` settings: an OTAA end device is found
 * by its DevEUI (its deviceID) and, once joined, by the DevAddr it was given (`joinedAddr`); an ABP one by its
 * DevAddr (its deviceID). Upper case, so frames in any case match. Other devices have none.
 */
export function loraKeys(
  protocol: number,
  deviceType: number,
  deviceId: string,
  lora: Record<string, unknown> | null,
  joinedAddr: string | null = null,
): LoraKeys {
  if (protocol !== 4 || deviceType === 2 || !lora) return { loraDevEui: null, loraDevAddr: null };
  if (lora.type === "otaa") return { loraDevEui: deviceId.toUpperCase(), loraDevAddr: joinedAddr };
  if (lora.type === "abp") return { loraDevEui: null, loraDevAddr: deviceId.toUpperCase() };
  return { loraDevEui: null, loraDevAddr: null };
}
