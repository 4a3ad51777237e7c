/** Test support for the packages above the registry (`@iot/registry/testing`); never imported by running code. */
export { insertDataPointRow, insertDataStreamRow } from "./domain/data-model-rows.js";
