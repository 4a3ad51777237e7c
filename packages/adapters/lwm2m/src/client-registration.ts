import type { ClientObservation, MessageLayer, Peer } from "@iot/adapter-coap";
import type { Lease } from "@iot/adapter-core";
import type { ObjectLinks } from "./codec/link-format.js";
import type { Lwm2mVersion, RegisterRequest } from "./codec/registration.js";
import type { ReqId } from "./command.js";

/** An observation the server holds on a client: the command that made it (or autoSub) and the layer's handle. */
interface HeldObservation {
  readonly reqID: ReqId;
  readonly observation: ClientObservation;
  /** The Content-Format asked for (kept to observe again after a restart). */
  readonly format: number;
}

/** The observations of a registration, telling their owner of each change (the adapter saves them). */
class ObservationMap extends Map<string, HeldObservation> {
  changed: (() => void) | undefined;

  override set(path: string, held: HeldObservation): this {
    super.set(path, held);
    this.changed?.();
    return this;
  }

  override delete(path: string): boolean {
    const had = super.delete(path);
    if (had) this.changed?.();
    return had;
  }

  override clear(): void {
    const had = this.size > 0;
    super.clear();
    if (had) this.changed?.();
  }
}

/**
 * One client's registration (OMA-TS-LightweightM2M-V1_0 §5.3): where it is, what it has, how long it stays
 * registered, and whether it is awake. The registry session is the `lease` (its keepAlive is the lifetime plus a
 * grace); everything else the server does to the client hangs off this object and ends with it.
 */
export class ClientRegistration {
  /** Where requests go: the address of its latest Register or Update (a device behind NAT may move). */
  peer: Peer;
  version: Lwm2mVersion;
  binding: string;
  /** Queue mode: the client sleeps between its updates and is reached only while awake. */
  queueMode: boolean;
  /** Seconds; the registration ends this long (plus the grace) after the latest Register or Update. */
  lifetime: number;
  objects: ObjectLinks;
  /** True while a queue-mode client sleeps (the registry shows deviceStatus 2). */
  sleeping = false;
  /** Observations held, by canonical path. */
  readonly observations = new ObservationMap();
  /** Epoch ms of the latest Register or Update: the registration expires a lifetime after it. */
  refreshedAt = Date.now();
  /** Stops handing commands to the client (set while it takes them). */
  stopCommands: (() => void) | undefined;
  awakeTimer: NodeJS.Timeout | undefined;
  /** Set once the registration ended (de-register, expiry, kick, replacement). */
  ended = false;

  constructor(
    /** The location id: the registration is `/rd/<id>`. */
    readonly id: string,
    readonly endpoint: string,
    readonly lease: Lease,
    peer: Peer,
    request: RegisterRequest,
    /** The layer its requests go through: the plain or the DTLS listener's, where it registered. */
    readonly layer: MessageLayer,
    /** The PSK identity of the DTLS session it registered on (normalised endpoint name); undefined for NoSec. */
    readonly identity?: string,
  ) {
    this.peer = peer;
    this.version = request.version;
    this.binding = request.binding;
    this.queueMode = request.queueMode;
    this.lifetime = request.lifetime;
    this.objects = request.objects;
  }

  /** Called when the observations change (the adapter saves its registrations then). */
  set onChange(listener: (() => void) | undefined) {
    this.observations.changed = listener;
  }

  /** The device's id in the registry, for logs. */
  get deviceId(): string {
    return this.lease.session.device.deviceId;
  }

  /** Ends every observation without telling the client (it is gone or will register afresh). */
  forgetObservations(): void {
    for (const held of this.observations.values()) held.observation.forget();
    this.observations.clear();
  }
}
