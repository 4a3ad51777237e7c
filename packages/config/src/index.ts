export * from "./settings.js";
export * from "./startup.js";
