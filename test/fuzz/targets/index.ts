/** Every fuzz target, in the order `pnpm fuzz` runs them. */
import type { FuzzTarget } from "../harness.js";
import { lwm2mCodecs } from "./lwm2m-codecs.js";

/** The targets by name. */
export const TARGETS: readonly FuzzTarget<never>[] = [lwm2mCodecs] as FuzzTarget<never>[];
