import { useState } from "preact/hooks";
import { api, download, type Rec } from "../api.ts";
import { t } from "../i18n.ts";
import { followTask } from "../task.ts";
import { ErrorBox, Section, Table } from "../ui.tsx";

/** A progress bar of a task (`progress` 0..100). */
function Progress({ task }: { task: Rec | null }) {
  if (!task) return null;
  const pct = Math.max(0, Math.min(100, Number(task.progress ?? 0)));
  return (
    <div class="progress" data-testid="progress" data-status={task.status}>
      <div style={{ width: `${pct}%` }} />
      <span>
        {t("progress")}: {pct}% {task.message ? `· ${task.message}` : ""}
      </span>
    </div>
  );
}

/** Device import (CSV upload, a progress bar, the rows that failed with their errors) and export download. */
export function Transfer() {
  const [file, setFile] = useState<File | null>(null);
  const [importTask, setImportTask] = useState<Rec | null>(null);
  const [exportTask, setExportTask] = useState<Rec | null>(null);
  const [error, setError] = useState<Error>();
  const run = async (fn: () => Promise<void>) => {
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const startImport = () =>
    run(async () => {
      if (!file) return;
      const form = new FormData();
      form.append("file", file);
      const r = await api<Rec>("POST", "/devices_import", form);
      await followTask(r.statusUrl, setImportTask);
    });
  const startExport = () =>
    run(async () => {
      const r = await api<Rec>("GET", "/devices_export");
      const task = await followTask(r.statusUrl, setExportTask);
      if (task.result?.downloadUrl) {
        await download(String(task.result.downloadUrl).replace(/^\/api\/v1/, ""), `devices-${task.taskID}.csv`);
      }
    });
  const result = importTask?.result;
  return (
    <div>
      <h1>{t("importExport")}</h1>
      <ErrorBox error={error} />
      <Section title={t("importDevices")}>
        <div class="toolbar">
          <input
            type="file"
            name="file"
            accept=".csv,text/csv"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
          <button class="primary" disabled={!file} onClick={() => void startImport()} data-testid="import-start">
            {t("importStart")}
          </button>
        </div>
        <Progress task={importTask} />
        {result ? (
          <div data-testid="import-result">
            <p>
              {t("created")}: <b data-testid="import-created">{result.created}</b> · {t("failed")}:{" "}
              <b data-testid="import-failed">{result.failed}</b>
            </p>
            <Table
              testId="import-errors"
              rows={result.errors ?? []}
              columns={[
                { label: t("line"), cell: (r) => r.line },
                {
                  label: t("errors"),
                  cell: (r) =>
                    Object.entries(r.errors ?? {})
                      .map(([k, v]) => `${k}: ${String(v)}`)
                      .join("; "),
                },
              ]}
            />
          </div>
        ) : null}
      </Section>
      <Section title={t("exportDevices")}>
        <button class="primary" onClick={() => void startExport()} data-testid="export-start">
          {t("exportStart")}
        </button>
        <Progress task={exportTask} />
      </Section>
    </div>
  );
}
