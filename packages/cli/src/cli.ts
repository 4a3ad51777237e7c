import { Command, CommanderError } from "commander";
import { CliError } from "./client.js";
import type { CommandContext } from "./context.js";
import type { SimulateOptions } from "./commands/simulate.js";
import { RESOURCES, type ResourceName } from "./commands/resources.js";
import { SIM_PROTOCOL_NAMES } from "./simulate/protocol-names.js";
import { processIo, type Io } from "./output.js";

// Each command's module is imported when the command runs, not before: `simulate` alone loads every adapter package
// (about 1.5 s through tsx), which `--help` and a one-request command must not wait for.
const resources = () => import("./commands/resources.js");
const schedules = () => import("./commands/schedules.js");
const transfer = () => import("./commands/transfer.js");

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new CliError(`"${v}" is not an integer`);
  return n;
};

/** A command's QoS: 0 fire and forget, 1 acknowledged, 2 exactly once (MQTT QoS 2). */
const qos = (v: string) => {
  if (v !== "0" && v !== "1" && v !== "2") throw new CliError(`--qos must be 0, 1 or 2, not "${v}"`);
  return Number(v) as 0 | 1 | 2;
};
const QOS_HELP = "0 fire and forget, 1 acknowledged (default for a device), 2 exactly once (MQTT QoS 2)";

/**
 * Runs `iot` with `argv` (the arguments after the program name); answers the exit code: 0, or 1 with the API's
 * message (or the usage error) on stderr. `signal` ends `events --follow`.
 */
export async function runCli(
  argv: readonly string[],
  opts: { io?: Io; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<number> {
  const io = opts.io ?? processIo;
  const program = new Command("iot")
    .description("Operate the device fleet through its REST API")
    .option("--json", "machine-readable JSON output")
    .option("--url <url>", "the API, e.g. http://127.0.0.1:8080 (default: the one logged in to)")
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.out(t), writeErr: (t) => io.err(t) });
  const ctx = (): CommandContext => {
    const g = program.opts<{ json?: boolean; url?: string }>();
    return { io, env: opts.env ?? process.env, json: g.json ?? false, url: g.url };
  };
  program
    .command("login")
    .description("log in and keep the token in a file only you can read")
    .requiredOption("-u, --username <name>")
    .requiredOption("-p, --password <password>")
    .action(async (o: { username: string; password: string }) =>
      (await import("./commands/login.js")).login(ctx(), o.username, o.password),
    );
  for (const resource of Object.keys(RESOURCES) as ResourceName[]) {
    const r = program.command(resource).description(`${resource}: list, get, create, delete`);
    r.command("list")
      .option("--page <n>", "page", int)
      .option("--limit <n>", "records per page", int)
      .option("--like <text>", "name contains")
      .action(async (o: { page?: number; limit?: number; like?: string }) =>
        (await resources()).listResource(ctx(), resource, o),
      );
    r.command("get <id>").action(async (id: string) => (await resources()).getResource(ctx(), resource, int(id)));
    r.command("create <key=value...>")
      .description("members of the create body, values as JSON or text")
      .action(async (pairs: string[]) => (await resources()).createResource(ctx(), resource, pairs));
    r.command("delete <id...>").action(async (ids: string[]) =>
      (await resources()).deleteResource(ctx(), resource, ids.map(int)),
    );
  }
  program
    .command("publish <target> <payload>")
    .description("send a command to a device (target: its deviceID), or with --group to a group (its groupID)")
    .option("--group", "the target is a groupID")
    .option("--topic <topic>", "the device topic (default: the device's command topic)")
    .option("--qos <qos>", QOS_HELP, qos)
    .option("--retain", "keep it as the desired state, sent at each subscribe (an empty payload clears it)")
    .action(
      async (
        target: string,
        payload: string,
        o: { group?: boolean; topic?: string; qos?: 0 | 1 | 2; retain?: boolean },
      ) =>
        (await import("./commands/publish.js")).publish(
          ctx(),
          o.group ? { groupID: target } : { deviceID: target },
          payload,
          { topic: o.topic, qos: o.qos, retain: o.retain },
        ),
    );
  program
    .command("import <file>")
    .description("import devices from a CSV file (the export's columns); exits 1 when a row failed")
    .action(async (file: string) => {
      if (!(await (await transfer()).importDevices(ctx(), file))) throw new CliError("some rows were not imported");
    });
  program
    .command("export")
    .description("export the devices as CSV")
    .option("-o, --output <file>", "write to this file (only you can read it: it holds tokens) instead of stdout")
    .action(async (o: { output?: string }) => (await transfer()).exportDevices(ctx(), o.output));
  program
    .command("simulate")
    .description("load the service like a fleet: N devices sending R messages a second through an adapter")
    .requiredOption("--protocol <p>", SIM_PROTOCOL_NAMES.join(", "))
    .option("--devices <n>", "devices (created as sim-<protocol>-<i>, or reused)", int, 10)
    .option("--rate <r>", "messages a second, all devices together (Modbus: register changes)", int, 10)
    .option("--seconds <s>", "how long (default: until Ctrl-C)", int)
    .option(
      "--target <url>",
      "the adapter, e.g. mqtt://host:1883 (Modbus: the registry's gRPC host:port); default: where the fleet tells " +
        "devices to connect (MQTT, CoAP), else the protocol's port on the API's host",
    )
    .option("--registry-token <token>", "Modbus: the central node's registry token (default: IOT_REGISTRY_TOKEN)")
    .action(async (o: Omit<SimulateOptions, "signal">) => {
      const env = opts.env ?? process.env;
      const { simulate } = await import("./commands/simulate.js");
      const ok = await simulate(ctx(), {
        ...o,
        registryToken: o.registryToken ?? env.IOT_REGISTRY_TOKEN,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (!ok) throw new CliError("some messages failed");
    });
  const scheduleCommands = program
    .command("schedules")
    .description("commands sent on a schedule: list, create, delete (device schedules; --group for group ones)");
  const kind = (o: { group?: boolean }) => (o.group ? "group" : "device");
  scheduleCommands
    .command("list")
    .option("--group", "group schedules")
    .option("--page <n>", "page", int)
    .option("--limit <n>", "records per page", int)
    .action(async (o: { group?: boolean; page?: number; limit?: number }) =>
      (await schedules()).listSchedules(ctx(), kind(o), o),
    );
  scheduleCommands
    .command("create <target> <payload>")
    .description("schedule a command to a device (target: its deviceID), or with --group to a group (its groupID)")
    .requiredOption("--name <name>", "the schedule's name")
    .option("--at <time>", 'once, at "YYYY-MM-DD HH:MM:SS" (UTC)')
    .option("--every <minutes>", "every N minutes", int)
    .option("--cron <expression>", "by five cron fields (UTC)")
    .option("--group", "the target is a groupID")
    .option("--topic <topic>", "the device topic (default: the device's command topic)")
    .option("--qos <qos>", QOS_HELP, qos)
    .action(
      async (
        target: string,
        payload: string,
        o: {
          name: string;
          at?: string;
          every?: number;
          cron?: string;
          group?: boolean;
          topic?: string;
          qos?: 0 | 1 | 2;
        },
      ) => (await schedules()).createSchedule(ctx(), kind(o), target, payload, o),
    );
  scheduleCommands
    .command("delete <id...>")
    .option("--group", "group schedules")
    .action(async (ids: string[], o: { group?: boolean }) =>
      (await schedules()).deleteSchedules(ctx(), kind(o), ids.map(int)),
    );
  program
    .command("events")
    .description("the latest uplinks; --follow prints new ones as they arrive")
    .option("--device <id>", "one device's (its numeric id)", int)
    .option("--limit <n>", "how many of the latest", int)
    .option("-f, --follow", "keep printing new uplinks until Ctrl-C")
    .action(async (o: { device?: number; limit?: number; follow?: boolean }) =>
      (await import("./commands/events.js")).events(ctx(), { ...o, ...(opts.signal ? { signal: opts.signal } : {}) }),
    );
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.err(`${err instanceof CliError ? err.message : (err as Error).message}\n`);
    return 1;
  }
}
