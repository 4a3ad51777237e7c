import { createDevices, TASK_STATUS, updateTask, type Caller, type DeviceInput, type Store } from "@iot/registry";
import { deviceImportRow } from "../routes/device-bodies.js";
import type { CsvRow } from "./device-csv.js";

/** Bad rows listed in an import's result at most (`failed` counts them all). */
const MAX_REPORTED_ROWS = 1000;
/** Rows created in one transaction at most (other writers of the tenant wait for one batch at most). */
const BATCH = 500;

/** A bad row: its line in the file and what is wrong, by column (FORM_INVALID style). */
interface RowError {
  line: number;
  errors: Record<string, string>;
}

/** An import's outcome, the task's `result`. */
export interface ImportResult {
  created: number;
  failed: number;
  errors: RowError[];
}

/** API body member names that are other columns in the file. */
const COLUMN_OF: Record<string, string> = { productID: "product" };
const columnsOf = (errors: Record<string, string>) =>
  Object.fromEntries(Object.entries(errors).map(([k, v]) => [COLUMN_OF[k] ?? k, v]));

/** Resolves the file's references (product, gateway and upper device) within the caller's tenant. */
class References {
  private readonly products = new Map<string, string | RowError["errors"]>();

  constructor(
    private readonly db: Store["db"],
    private readonly caller: Caller,
  ) {}

  /** The productID a row names: `product` as a productID, else as a product name, else `productName` as one. */
  async product(cells: Record<string, string>): Promise<string | Record<string, string>> {
    const key = `${cells.product ?? ""}\u0000${cells.productName ?? ""}`;
    let found = this.products.get(key);
    if (found === undefined) {
      found = await this.findProduct(cells.product, cells.productName);
      this.products.set(key, found);
    }
    return found;
  }

  private async findProduct(product?: string, productName?: string): Promise<string | Record<string, string>> {
    if (!product) return { product: "required" };
    const q = () =>
      this.db.selectFrom("products").select("productId").where("tenantId", "=", this.caller.tenantId).limit(2);
    if (await q().where("productId", "=", product).executeTakeFirst()) return product;
    for (const name of [product, productName]) {
      if (!name) continue;
      const named = await q().where("productName", "=", name).execute();
      if (named.length === 1) return named[0]!.productId;
      if (named.length > 1) return { product: "names several products: use the productID" };
    }
    return { product: "no such product" };
  }

  /** The id of the device of the tenant with this deviceID (a gateway when `gateway`), else undefined. */
  async device(deviceId: string, gateway: boolean): Promise<number | undefined> {
    let q = this.db
      .selectFrom("devices")
      .select("id")
      .where("tenantId", "=", this.caller.tenantId)
      .where("deviceId", "=", deviceId);
    q = gateway ? q.where("deviceType", "=", 2) : q.where("deviceType", "!=", 2);
    return (await q.executeTakeFirst())?.id;
  }
}

const parseJsonCell = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * The `POST /devices` body a row stands for (ids resolved), or the row's errors. Numbers stay text: the body schema
 * takes digit strings as the API does.
 */
async function bodyOf(
  refs: References,
  row: CsvRow,
): Promise<{ body: Record<string, unknown> } | { errors: Record<string, string> }> {
  const errors: Record<string, string> = {};
  if (row.widthProblem) errors.row = row.widthProblem;
  const { gateway, parentDevice, lora, location } = row.cells;
  // Every other column is a member of the device body under its own name.
  const body: Record<string, unknown> = { ...row.cells };
  for (const column of ["product", "productName", "gateway", "parentDevice", "lora", "location"]) delete body[column];
  const productId = await refs.product(row.cells);
  if (typeof productId === "string") body.productID = productId;
  else Object.assign(errors, productId);
  if (gateway !== undefined) {
    body.gateway = await refs.device(gateway, true);
    if (body.gateway === undefined) errors.gateway = "no such gateway";
  }
  if (parentDevice !== undefined) {
    body.parentDevice = await refs.device(parentDevice, false);
    if (body.parentDevice === undefined) errors.parentDevice = "no such device";
  }
  if (lora !== undefined) {
    body.lora = parseJsonCell(lora);
    if (body.lora === null || typeof body.lora !== "object" || Array.isArray(body.lora))
      errors.lora = "must be a JSON object";
  }
  // Location is JSON as exported; plain text is kept as it is.
  if (location !== undefined) body.location = parseJsonCell(location) ?? location;
  return Object.keys(errors).length ? { errors } : { body };
}

/** What an import needs. */
export interface ImportJob {
  store: Store;
  caller: Caller;
  taskIntId: number;
  rows: CsvRow[];
}

/**
 * Imports rows in file order, each through the same shape checks as `POST /devices` (Form 1, deviceType 2 allowed)
 * and the registry's creation rules (`createDevices`, the code of `createDevice`, in batches of BATCH rows, one
 * transaction each): good rows are created, bad rows collected as `{line, errors}`. Earlier rows are in the store
 * (or in the same batch) when a later one is checked, so a row may name a gateway or upper device created above it,
 * and modBusIndex stays unique within the file and against the store. Progress (`<n> of <total> rows`) advances
 * after every BATCH rows read, good or bad; the task ends with `{created, failed, errors}` (success even with bad
 * rows; failed only when the import itself broke).
 */
export async function runDeviceImport(job: ImportJob, now = () => Date.now()): Promise<ImportResult> {
  const db = job.store.db;
  const refs = new References(db, job.caller);
  let created = 0;
  const failures: RowError[] = [];
  const bad = (line: number, errors: Record<string, string>) => failures.push({ line, errors: columnsOf(errors) });
  const result = (): ImportResult => ({
    created,
    failed: failures.length,
    errors: failures.sort((a, b) => a.line - b.line).slice(0, MAX_REPORTED_ROWS),
  });
  let pending: Array<{ line: number; input: DeviceInput }> = [];
  /** deviceIDs of the pending batch: a row naming one as its gateway or upper device waits for the batch. */
  const pendingIds = new Set<string>();
  let done = 0;
  /** Rows read when progress was last recorded. */
  let reported = 0;
  /** Creates the pending rows, then records progress. */
  const flush = async () => {
    if (pending.length > 0) {
      const batch = pending;
      pending = [];
      pendingIds.clear();
      const outcomes = await createDevices(
        db,
        job.caller,
        batch.map((p) => p.input),
        now(),
      );
      outcomes.forEach((o, i) => {
        if ("id" in o) created++;
        else bad(batch[i]!.line, o.error.errors ?? { row: o.error.message });
      });
    }
    // better-sqlite3 answers synchronously: let requests in between batches, or the API would stall until the end.
    await new Promise((resolve) => setImmediate(resolve));
    if (done > reported && done < job.rows.length) {
      reported = done;
      await updateTask(
        db,
        job.taskIntId,
        { progress: (done * 100) / job.rows.length, message: `${done} of ${job.rows.length} rows` },
        now(),
      );
    }
  };
  try {
    await updateTask(db, job.taskIntId, { status: TASK_STATUS.running, progress: 0 }, now());
    for (const row of job.rows) {
      const { gateway, parentDevice } = row.cells;
      if ((gateway && pendingIds.has(gateway)) || (parentDevice && pendingIds.has(parentDevice))) await flush();
      const built = await bodyOf(refs, row);
      if ("errors" in built) bad(row.line, built.errors);
      else {
        const parsed = deviceImportRow.safeParse(built.body);
        if (parsed.success) {
          pending.push({ line: row.line, input: parsed.data });
          if (parsed.data.deviceId) pendingIds.add(parsed.data.deviceId);
        } else {
          const errors: Record<string, string> = {};
          for (const issue of parsed.error.issues) errors[issue.path.join(".") || "row"] ??= issue.message;
          bad(row.line, errors);
        }
      }
      done++;
      // Bad rows create nothing, yet they count: a file of them still shows its progress.
      if (pending.length >= BATCH || done - reported >= BATCH) await flush();
    }
    await flush();
    const r = result();
    const message = `${r.created} devices created, ${r.failed} rows failed`;
    await updateTask(db, job.taskIntId, { status: TASK_STATUS.success, progress: 100, message, result: r }, now());
    return r;
  } catch (err) {
    await updateTask(
      db,
      job.taskIntId,
      { status: TASK_STATUS.failed, message: "import failed", result: result() },
      now(),
    ).catch(() => {});
    throw err;
  }
}
