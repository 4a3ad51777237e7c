import type { KyselyPlugin } from "kysely";

/**
 * Test support (not a test file): a kysely plugin counting the queries built through a handle it is added to
 * (`db.withPlugin(counter.plugin)`). A query compiled once and run again (reusableQuery) is not counted again.
 */
export function queryCounter(): { readonly plugin: KyselyPlugin; readonly count: number } {
  let count = 0;
  return {
    plugin: {
      transformQuery: (args) => {
        count++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    },
    get count() {
      return count;
    },
  };
}
