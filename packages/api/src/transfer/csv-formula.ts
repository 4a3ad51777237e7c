/**
 * Spreadsheet formula neutralisation of CSV cells (OWASP "CSV injection"): a spreadsheet runs a cell that starts
 * with `=`, `+`, `-`, `@`, TAB or CR as a formula, so a device named `=cmd|' /C calc'!A0` must not reach one as it
 * is. The rule, applied by the export and undone by the import (docs/devices/import-export.md):
 *
 * - a value that starts with one of those characters, after any number of `'`, is written with one more `'` in
 *   front (and quoted), except a plain negative number such as `-12.5`, which a spreadsheet reads as a number;
 * - a cell that starts with one or more `'` followed by one of those characters is read with its first `'` removed;
 *   every other cell is read as it is.
 *
 * So `=1+1` is written `'=1+1`, `'=1+1` is written `''=1+1`, and both read back as they were; `'abc` stays `'abc`.
 */

/** A value the export escapes: `'`s, then a formula's first character. */
const FORMULA = /^'*[=+\-@\t\r]/;
/** A cell the import reads back: at least one `'`, then a formula's first character. */
export const ESCAPED_FORMULA = /^'+[=+\-@\t\r]/;
/** A plain negative number (as JavaScript writes one): not a formula. */
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?(e[-+]\d+)?$/;

/** The cell an export writes for `value`: `'` + value when a spreadsheet would run it as a formula. */
export function escapeFormula(value: string): string {
  return FORMULA.test(value) && !NEGATIVE_NUMBER.test(value) ? `'${value}` : value;
}

/** The value an import reads from `cell`: escapeFormula undone (`escapeFormula(v)` reads back as `v`). */
export function unescapeFormula(cell: string): string {
  return ESCAPED_FORMULA.test(cell) ? cell.slice(1) : cell;
}
