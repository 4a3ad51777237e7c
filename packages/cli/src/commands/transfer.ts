import { readFileSync, writeFileSync } from "node:fs";
import { SingleBar } from "cli-progress";
import { CliError, dynamicCall } from "../client.js";
import { authedFetch, loggedIn, type CommandContext } from "../context.js";

/** A task as `task_status` answers it: status 1 waiting, 2 running, 3 success, 4 failed. */
interface TaskStatus {
  status: number;
  progress: number;
  message: string;
  taskID: string;
  result: unknown;
}

/** The API's error in a failed raw answer, as the typed client reports it. */
async function failure(res: Response): Promise<CliError> {
  const e = (await res.json().catch(() => ({}))) as { errorCode?: string; message?: string; errors?: object };
  const fields = Object.entries(e.errors ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
  const head = `${e.errorCode ?? res.status}: ${e.message ?? res.statusText}`;
  return new CliError(fields.length ? `${head} (${fields.join("; ")})` : head);
}

/** Polls the task until it ends, with a progress bar on stderr unless --json; answers its last status. */
async function untilDone(ctx: CommandContext, statusUrl: string, intervalMs = 300): Promise<TaskStatus> {
  const client = loggedIn(ctx);
  const bar = ctx.json ? undefined : new SingleBar({ stream: process.stderr, format: "{bar} {percentage}% {msg}" });
  bar?.start(100, 0, { msg: "" });
  try {
    for (;;) {
      const t = (await dynamicCall(client, "GET", `/api/v1${statusUrl}`)) as TaskStatus;
      bar?.update(Math.round(t.progress), { msg: t.message ?? "" });
      if (t.status >= 3) return t;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  } finally {
    bar?.stop();
  }
}

/**
 * `iot import FILE`: uploads a device CSV (the export's columns), follows the task with a progress bar, then prints
 * how many were created and each bad row with its line and errors. Exits 1 when a row failed or the task did.
 */
export async function importDevices(ctx: CommandContext, file: string): Promise<boolean> {
  const res = await authedFetch(ctx, "/api/v1/devices_import", {
    method: "POST",
    headers: { "content-type": "text/csv" },
    body: readFileSync(file),
  });
  if (res.status !== 202) throw await failure(res);
  const task = await untilDone(ctx, ((await res.json()) as { statusUrl: string }).statusUrl);
  const r = (task.result ?? {}) as { created?: number; failed?: number; errors?: { line: number; errors: object }[] };
  if (ctx.json) ctx.io.out(`${JSON.stringify({ status: task.status, message: task.message, ...r })}\n`);
  else {
    ctx.io.out(`created ${r.created ?? 0}, failed ${r.failed ?? 0}${task.status === 4 ? `: ${task.message}` : ""}\n`);
    for (const e of r.errors ?? [])
      ctx.io.out(
        `line ${e.line}: ${Object.entries(e.errors)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join("; ")}\n`,
      );
  }
  return task.status === 3 && (r.failed ?? 0) === 0;
}

/** `iot export [-o FILE]`: exports the devices as CSV (to FILE, else stdout) once the task is done. */
export async function exportDevices(ctx: CommandContext, output?: string): Promise<void> {
  const res = await authedFetch(ctx, "/api/v1/devices_export");
  if (res.status !== 202) throw await failure(res);
  const task = await untilDone(ctx, ((await res.json()) as { statusUrl: string }).statusUrl);
  if (task.status !== 3) throw new CliError(`export failed: ${task.message}`);
  const { downloadUrl } = task.result as { downloadUrl: string };
  const file = await authedFetch(ctx, downloadUrl);
  if (!file.ok) throw await failure(file);
  const csv = await file.text();
  if (output) {
    writeFileSync(output, csv, { mode: 0o600 });
    ctx.io.err(`wrote ${output}\n`);
  } else ctx.io.out(csv);
}
