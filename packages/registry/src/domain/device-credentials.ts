/** Credentials as adapters present them, in plain types: the adapters' protocols differ, the checks take these. */
export type DeviceCredentials =
  | { kind: "token"; clientId: string; username: string; token: string }
  | { kind: "certificate"; clientId: string; commonName: string; fingerprint: string }
  | { kind: "modbus"; gatewayDeviceId: string; gatewayUsername: string; gatewayToken: string; index: number }
  /** `bootstrap`: a Bootstrap-Request, answered with the PSK keys when the device's settings ask for PSK. */
  | { kind: "lwm2m"; endpoint: string; bootstrap?: boolean }
  | { kind: "lora"; devEui: string; devAddr: string; gatewayEui?: string }
  /** CoAP over DTLS: the PSK identity of the handshake, a deviceUsername. */
  | { kind: "psk"; identity: string };

/** One connect to check: the credentials, the protocol of the adapter asking, and the client's address (logged). */
export type AuthRequest = { protocol: number; credentials: DeviceCredentials; clientIp: string };
