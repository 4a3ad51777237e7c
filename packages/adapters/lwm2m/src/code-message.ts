/**
 * Names of CoAP response codes (RFC 7252 §12.1.2, RFC 7959, RFC 8132): what `up/resp` answers carry beside the code
 * (`{code: "2.05", codeMsg: "Content"}`) and what a FAILED command's message says (`4.04 Not Found`).
 */
const NAMES: Record<string, string> = {
  "2.01": "Created",
  "2.02": "Deleted",
  "2.03": "Valid",
  "2.04": "Changed",
  "2.05": "Content",
  "2.31": "Continue",
  "4.00": "Bad Request",
  "4.01": "Unauthorized",
  "4.02": "Bad Option",
  "4.03": "Forbidden",
  "4.04": "Not Found",
  "4.05": "Method Not Allowed",
  "4.06": "Not Acceptable",
  "4.08": "Request Entity Incomplete",
  "4.09": "Conflict",
  "4.12": "Precondition Failed",
  "4.13": "Request Entity Too Large",
  "4.15": "Unsupported Content-Format",
  "4.22": "Unprocessable Entity",
  "5.00": "Internal Server Error",
  "5.01": "Not Implemented",
  "5.02": "Bad Gateway",
  "5.03": "Service Unavailable",
  "5.04": "Gateway Timeout",
  "5.05": "Proxying Not Supported",
};

/** The name of a response code (`"2.05"` → `"Content"`); unknown codes by class: `Success`, `Client Error`, … */
export function codeMessage(code: string): string {
  const known = NAMES[code];
  if (known) return known;
  return code.startsWith("2.") ? "Success" : code.startsWith("4.") ? "Client Error" : "Server Error";
}

/** Whether a response code is a success (2.xx): the command is DELIVERED. */
export const isSuccess = (code: string): boolean => code.startsWith("2.");
