import { parse } from "csv-parse/sync";
import { RegistryError } from "@iot/registry";
import { unescapeFormula } from "./csv-formula.js";
import { DEVICE_COLUMNS, REQUIRED_COLUMNS } from "./device-columns.js";

/** One data row of an import file: its line number in the file and its non-empty cells by column. */
export interface CsvRow {
  line: number;
  cells: Record<string, string>;
  /** Set when the row has another number of cells than the header. */
  widthProblem?: string;
}

const badFile = (why: string) => new RegistryError("FORM_INVALID", { file: why }, "Not a device CSV file");

/**
 * Reads a device import file: UTF-8 CSV (comma-separated, optional BOM, quoted cells may span lines) whose header
 * names only DEVICE_COLUMNS and at least REQUIRED_COLUMNS. FORM_INVALID names `file` (not UTF-8 text, not CSV, no
 * data row) or `columns` (unknown, missing or repeated columns) at once, before any row is imported. A cell an export
 * neutralised as a formula (csv-formula.ts) is read back as the value it stands for.
 */
export function parseDeviceCsv(bytes: Uint8Array): { columns: string[]; rows: CsvRow[] } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badFile("is not UTF-8 text");
  }
  if (text.includes("\u0000")) throw badFile("is not CSV text (it holds NUL bytes)");
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // One line ending (CRLF files are common): line numbers then count exactly.
    records = parse(text.replace(/\r\n?/g, "\n"), {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as never;
  } catch (err) {
    throw badFile(`is not CSV: ${(err as Error).message}`);
  }
  const header = records[0]?.record.map((c) => c.trim());
  if (!header) throw badFile("is empty");
  const known = DEVICE_COLUMNS as readonly string[];
  // Every problem of the header at once: a file with `productID` for `product` hears of both.
  const problems = [
    ["unknown", header.filter((c) => !known.includes(c))],
    ["missing", REQUIRED_COLUMNS.filter((c) => !header.includes(c))],
    ["repeated", header.filter((c, i) => header.indexOf(c) !== i)],
  ] as const;
  const said = problems
    .filter(([, list]) => list.length > 0)
    .map(([what, list]) => `${what} columns: ${list.join(", ")}`);
  if (said.length) throw new RegistryError("FORM_INVALID", { columns: said.join("; ") });
  if (records.length < 2) throw badFile("has no device rows");
  const rows = records.slice(1).map(({ record, info }) => {
    const cells: Record<string, string> = {};
    header.forEach((column, i) => {
      const v = record[i];
      if (v !== undefined && v !== "") cells[column] = unescapeFormula(v);
    });
    // info.lines is where the row ends; a quoted cell may span lines.
    const spans = record.reduce((n, v) => n + (v.match(/\n/g)?.length ?? 0), 0);
    const row: CsvRow = { line: info.lines - spans, cells };
    if (record.length !== header.length) row.widthProblem = `has ${record.length} cells, the header ${header.length}`;
    return row;
  });
  return { columns: header, rows };
}
