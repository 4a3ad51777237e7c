export { runCli } from "./cli.js";
export { credentialsPath, loadCredentials, saveCredentials, type Credentials } from "./credentials.js";
