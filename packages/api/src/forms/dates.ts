/** Formats epoch ms as the spec's `YYYY-MM-DD HH:MM:SS` (UTC); null stays null. */
export function formatDate(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}
