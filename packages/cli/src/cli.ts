import { Command, CommanderError } from "commander";
import { CliError } from "./client.js";
import type { CommandContext } from "./context.js";
import { events } from "./commands/events.js";
import { login } from "./commands/login.js";
import { publish } from "./commands/publish.js";
import { simulate, type SimulateOptions } from "./commands/simulate.js";
import { exportDevices, importDevices } from "./commands/transfer.js";
import { SIM_PROTOCOLS } from "./simulate/protocols.js";
import {
  createResource,
  deleteResource,
  getResource,
  listResource,
  RESOURCES,
  type ResourceName,
} from "./commands/resources.js";
import { processIo, type Io } from "./output.js";

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new CliError(`"${v}" is not an integer`);
  return n;
};

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
    .action((o: { username: string; password: string }) => login(ctx(), o.username, o.password));
  for (const resource of Object.keys(RESOURCES) as ResourceName[]) {
    const r = program.command(resource).description(`${resource}: list, get, create, delete`);
    r.command("list")
      .option("--page <n>", "page", int)
      .option("--limit <n>", "records per page", int)
      .option("--like <text>", "name contains")
      .action((o: { page?: number; limit?: number; like?: string }) => listResource(ctx(), resource, o));
    r.command("get <id>").action((id: string) => getResource(ctx(), resource, int(id)));
    r.command("create <key=value...>")
      .description("members of the create body, values as JSON or text")
      .action((pairs: string[]) => createResource(ctx(), resource, pairs));
    r.command("delete <id...>").action((ids: string[]) => deleteResource(ctx(), resource, ids.map(int)));
  }
  program
    .command("publish <target> <payload>")
    .description("send a command to a device (target: its deviceID), or with --group to a group (its groupID)")
    .option("--group", "the target is a groupID")
    .option("--topic <topic>", "the device topic (default: the device's command topic)")
    .action((target: string, payload: string, o: { group?: boolean; topic?: string }) =>
      publish(ctx(), o.group ? { groupID: target } : { deviceID: target }, payload, { topic: o.topic }),
    );
  program
    .command("import <file>")
    .description("import devices from a CSV file (the export's columns); exits 1 when a row failed")
    .action(async (file: string) => {
      if (!(await importDevices(ctx(), file))) throw new CliError("some rows were not imported");
    });
  program
    .command("export")
    .description("export the devices as CSV")
    .option("-o, --output <file>", "write to this file (only you can read it: it holds tokens) instead of stdout")
    .action((o: { output?: string }) => exportDevices(ctx(), o.output));
  program
    .command("simulate")
    .description("load the service like a fleet: N devices sending R messages a second through an adapter")
    .requiredOption("--protocol <p>", [...SIM_PROTOCOLS.keys()].join(", "))
    .option("--devices <n>", "devices (created as sim-<protocol>-<i>, or reused)", int, 10)
    .option("--rate <r>", "messages a second, all devices together (Modbus: register changes)", int, 10)
    .option("--seconds <s>", "how long (default: until Ctrl-C)", int)
    .option(
      "--target <url>",
      "the adapter, e.g. mqtt://host:1883 (Modbus: the registry's gRPC host:port); default: the API's host",
    )
    .option("--registry-token <token>", "Modbus: the central node's registry token (default: IOT_REGISTRY_TOKEN)")
    .action(async (o: Omit<SimulateOptions, "signal">) => {
      const env = opts.env ?? process.env;
      const ok = await simulate(ctx(), {
        ...o,
        registryToken: o.registryToken ?? env.IOT_REGISTRY_TOKEN,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (!ok) throw new CliError("some messages failed");
    });
  program
    .command("events")
    .description("the latest uplinks; --follow prints new ones as they arrive")
    .option("--device <id>", "one device's (its numeric id)", int)
    .option("--limit <n>", "how many of the latest", int)
    .option("-f, --follow", "keep printing new uplinks until Ctrl-C")
    .action((o: { device?: number; limit?: number; follow?: boolean }) =>
      events(ctx(), { ...o, ...(opts.signal ? { signal: opts.signal } : {}) }),
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
