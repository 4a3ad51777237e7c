/** A host clients can dial for a bound address: wildcard binds are announced as the loopback address. */
export function announcedHost(bound: string): string {
  return bound === "0.0.0.0" || bound === "::" || bound === "" ? "127.0.0.1" : bound;
}
