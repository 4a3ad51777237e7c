import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient } from "@nats-io/jetstream";
import {
  connect,
  headers as natsHeaders,
  type Msg,
  type NatsConnection,
  type Subscription,
} from "@nats-io/transport-node";
import type { Kysely } from "kysely";
import { parseBasicAuth } from "@iot/config";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";
import { RegistryError } from "../errors.js";
import { callerFromAppKey } from "../domain/applications.js";
import { getDeviceByDeviceId } from "../domain/devices.js";
import type { CommandRouter } from "../router/commands.js";
import { EVENT_TYPES, feedSignal, newestEventId, readEvents, type FeedEvent } from "./events.js";

/** Settings key of the id of the last event published to JetStream. */
export const NATS_CURSOR_KEY = "nats.cursor";
/**
 * Settings key of this database's random feed id, the prefix of every Nats-Msg-Id: event ids restart in another
 * database (a new installation, a test), and JetStream would drop its events as duplicates of the other's.
 */
export const NATS_FEED_ID_KEY = "nats.feed_id";
/** Queue group of the command subscription: one central node handles each command. */
const COMMAND_QUEUE = "iot-central";
/** Most events published in one pass. */
const PAGE = 500;
/** JetStream de-duplication window (by Nats-Msg-Id = event id): replays within it are dropped by the server. */
const DUPLICATE_WINDOW_NS = 120 * 1e9;

/** Where and how: the server, the stream's name and its retention limits. */
export interface NatsOptions {
  url: string;
  stream: string;
  maxAgeMs: number;
  maxBytes: number;
  /** How often the outbox is checked besides feedSignal's wake-ups, ms. */
  pollMs?: number;
}

/** A subject token from an id: NATS tokens may not hold whitespace, `.`, `*` or `>` alone; those become `_`. */
export function subjectToken(id: string | null): string {
  if (id === null || id === "") return "_";
  return id.replace(/[\s.*>]/g, "_");
}

/** The subject an event is published on: `iot.<tenantID>.<type>.<deviceID>`. */
export function eventSubject(e: Pick<FeedEvent, "tenantID" | "type" | "deviceID">): string {
  return `iot.${subjectToken(e.tenantID)}.${e.type}.${subjectToken(e.deviceID)}`;
}

/** A command message's body: the payload (string), optional topic and QoS, as `POST /device_publish` takes them. */
interface CommandBody {
  payload: string;
  topic?: string;
  qos?: 0 | 1 | 2;
}

function parseCommand(data: Uint8Array): CommandBody {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(data).toString("utf8"));
  } catch {
    throw new RegistryError("FORM_INVALID", { body: "must be JSON" });
  }
  const b = body as Partial<CommandBody> | null;
  if (typeof b?.payload !== "string") throw new RegistryError("FORM_INVALID", { payload: "must be a string" });
  if (b.topic !== undefined && typeof b.topic !== "string")
    throw new RegistryError("FORM_INVALID", { topic: "must be a string" });
  if (b.qos !== undefined && b.qos !== 0 && b.qos !== 1 && b.qos !== 2)
    throw new RegistryError("FORM_INVALID", { qos: "0, 1 or 2" });
  return { payload: b.payload, topic: b.topic, qos: b.qos };
}

/**
 * The NATS JetStream side of the northbound feed (docs/northbound.md). On start it creates (or updates) the stream
 * holding `iot.*.<type>.>` for every event type, with the configured age and size limits; then it publishes every
 * outbox event after its stored cursor, awaiting the server's acknowledgements before moving the cursor (at least
 * once; `<feed id>-<event id>` as Nats-Msg-Id lets the server drop a replay within 2 minutes). It also serves commands:
 * `iot.<tenantID>.commands.<deviceID>` with an `Authorization: Basic base64(appID:appToken)` header of that tenant.
 */
export class NatsBridge {
  #nc: NatsConnection | undefined;
  #js: JetStreamClient | undefined;
  #sub: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #active: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  readonly #wake = () => this.#kick();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly commands: CommandRouter,
    private readonly options: NatsOptions,
    private readonly logger: Logger,
  ) {}

  /** Connects, sets up the stream, subscribes to commands and starts publishing. Throws when NATS is unreachable. */
  async start(): Promise<void> {
    const o = this.options;
    this.#nc = await connect({ servers: o.url, name: "iot-central", maxReconnectAttempts: -1 });
    const jsm = await jetstreamManager(this.#nc);
    const config = {
      subjects: EVENT_TYPES.map((t) => `iot.*.${t}.>`),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: o.maxAgeMs * 1e6,
      max_bytes: o.maxBytes,
      duplicate_window: DUPLICATE_WINDOW_NS,
    };
    const exists = await jsm.streams.info(o.stream).then(
      () => true,
      () => false,
    );
    if (exists) await jsm.streams.update(o.stream, config);
    else await jsm.streams.add({ name: o.stream, ...config });
    this.#js = jetstream(this.#nc);
    this.#sub = this.#nc.subscribe("iot.*.commands.>", { queue: COMMAND_QUEUE });
    void this.#serveCommands(this.#sub);
    feedSignal.on("committed", this.#wake);
    this.#timer = setInterval(this.#wake, o.pollMs ?? 500);
    this.#timer.unref();
    this.#kick();
  }

  /** Stops publishing and serving; waits for the pass under way; closes the connection. */
  async stop(): Promise<void> {
    this.#stopped = true;
    feedSignal.off("committed", this.#wake);
    clearInterval(this.#timer);
    await this.#active;
    this.#sub?.unsubscribe();
    await this.#nc?.drain().catch(() => undefined);
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#active) {
      this.#again = true;
      return;
    }
    this.#active = this.#publishAll()
      .catch((err: unknown) => this.logger.error({ err }, "publishing events to NATS failed; retrying"))
      .finally(() => {
        this.#active = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          setImmediate(this.#wake);
        }
      });
  }

  /** Publishes the events after the cursor, page by page, moving the stored cursor after each acknowledged page. */
  async #publishAll(): Promise<void> {
    let cursor = await this.#readCursor();
    const feedId = await this.#feedId();
    for (;;) {
      if (this.#stopped) return;
      const newest = await newestEventId(this.db);
      if (newest <= cursor) return;
      const events = await readEvents(this.db, { afterId: cursor, upToId: newest, limit: PAGE });
      await Promise.all(
        events.map((e) =>
          this.#js!.publish(eventSubject(e), JSON.stringify(e), { msgID: `${feedId}-${e.id}`, timeout: 10_000 }),
        ),
      );
      cursor = events.length < PAGE ? newest : events.at(-1)!.id;
      await this.db
        .updateTable("settings")
        .set({ value: String(cursor) })
        .where("key", "=", NATS_CURSOR_KEY)
        .execute();
    }
  }

  /** The stored cursor; the first start begins at the newest event (history is not replayed into a new stream). */
  async #readCursor(): Promise<number> {
    const row = await this.db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", NATS_CURSOR_KEY)
      .executeTakeFirst();
    if (row) return Number(row.value);
    const start = await newestEventId(this.db);
    await this.db
      .insertInto("settings")
      .values({ key: NATS_CURSOR_KEY, value: String(start) })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
    return start;
  }

  /** This database's feed id (made once, kept in settings). */
  async #feedId(): Promise<string> {
    await this.db
      .insertInto("settings")
      .values({ key: NATS_FEED_ID_KEY, value: randomBytes(8).toString("hex") })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
    const row = await this.db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", NATS_FEED_ID_KEY)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  async #serveCommands(sub: Subscription): Promise<void> {
    for await (const msg of sub) {
      const answer = await this.#command(msg).catch((err: unknown) => {
        if (err instanceof RegistryError)
          return { ok: false, errorCode: err.code, message: err.message, errors: err.errors };
        this.logger.error({ err, subject: msg.subject }, "NATS command failed");
        return { ok: false, errorCode: "INTERNAL_ERROR", message: "Internal error" };
      });
      if (msg.reply) msg.respond(JSON.stringify(answer), { headers: natsHeaders() });
    }
  }

  /** One command message: checked like `POST /device_publish` with the tenant's application key. */
  async #command(msg: Msg): Promise<Record<string, unknown>> {
    const [, tenantId, , ...rest] = msg.subject.split(".");
    const deviceId = rest.join(".");
    const key = parseBasicAuth(msg.headers?.get("Authorization"));
    if (!key) throw new RegistryError("AUTH_FAILED", undefined, "Authorization: Basic base64(appID:appToken) required");
    const caller = await callerFromAppKey(this.db, key.username, key.password);
    // A key only acts in its own tenant; the same answer as an unknown device, so tenants are not probed.
    if (caller.tenantId !== tenantId) throw new RegistryError("DATA_NOT_FOUND", { device: "not found" });
    if (caller.role === "viewer") throw new RegistryError("PERMISSION_DENIED", undefined, "Viewers may only read");
    const body = parseCommand(msg.data);
    const device = await getDeviceByDeviceId(this.db, caller, deviceId);
    const r = await this.commands.publish(caller, {
      deviceIntId: device.id,
      topic: body.topic,
      payload: body.payload,
      qos: body.qos ?? 1,
    });
    return { ok: true, controlLogIntID: r.id, publishStatus: String(r.publishStatus) };
  }
}
