export { consoleRoutes, type ConsoleOptions } from "./console-routes.js";
export { CONSOLE_DIST, consoleBuildIsCurrent, ensureConsoleBuilt } from "./console-build.js";
