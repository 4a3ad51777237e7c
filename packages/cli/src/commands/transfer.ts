import { readFileSync, writeFileSync } from "node:fs";
import { CliError, type AnswerOf } from "../client.js";
import { authedFetch, loggedIn, type CommandContext } from "../context.js";
import { processIo } from "../output.js";
import { followTask, type TaskStatus } from "./task-progress.js";

/** The API's error in a failed raw answer, as the typed client reports it. */
async function failure(res: Response): Promise<CliError> {
  const e = (await res.json().catch(() => ({}))) as { errorCode?: string; message?: string; errors?: object };
  const fields = Object.entries(e.errors ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
  const head = `${e.errorCode ?? res.status}: ${e.message ?? res.statusText}`;
  return new CliError(fields.length ? `${head} (${fields.join("; ")})` : head);
}

/** Follows the task with the progress view that suits where stderr goes (none with --json). */
function untilDone(ctx: CommandContext, statusUrl: string): Promise<TaskStatus> {
  const terminal = ctx.io === processIo && process.stderr.isTTY;
  return followTask(loggedIn(ctx), ctx.io, statusUrl, { view: ctx.json ? "none" : terminal ? "bar" : "lines" });
}

/**
 * `iot import FILE`: uploads a device CSV (the export's columns), follows the task showing the rows done, then prints
 * how many were created and each bad row with its line and errors. Exits 1 when a row failed or the task did.
 */
export async function importDevices(ctx: CommandContext, file: string): Promise<boolean> {
  const res = await authedFetch(ctx, "/api/v1/devices_import", {
    method: "POST",
    headers: { "content-type": "text/csv" },
    body: readFileSync(file),
  });
  if (res.status !== 202) throw await failure(res);
  const task = await untilDone(ctx, ((await res.json()) as AnswerOf<"/api/v1/devices_import", "POST">).statusUrl);
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
  const task = await untilDone(ctx, ((await res.json()) as AnswerOf<"/api/v1/devices_export", "GET">).statusUrl);
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
