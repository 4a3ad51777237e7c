/**
 * The username and password of an `Authorization: Basic …` header, or
 * undefined when there is none or it is not valid Basic credentials.
 */
export function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header?.trim() ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
