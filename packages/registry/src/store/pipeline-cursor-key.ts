/**
 * Settings key of the id of the last device event the data pipeline went through. The pipeline keeps the row; the
 * store's retention reads it, since it deletes only the events at or below it (the pipeline still needs the others).
 */
export const PIPELINE_CURSOR_KEY = "pipeline.cursor";
