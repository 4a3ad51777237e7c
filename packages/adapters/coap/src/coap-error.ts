/** Why a request the layer sent as a client did not get a response (the closed list of CoapError codes). */
export type CoapErrorCode =
  /** The peer rejected the request with an RST (RFC 7252 §4.2): it does not take it, or lost its state. */
  | "reset"
  /** No ACK through every retransmission, or no response within the response timeout after an ACK. */
  | "timeout"
  /** Too many requests in flight or waiting, to that peer or in all, or too many observations. */
  | "busy"
  /**
   * The request does not fit one datagram (its options) or 2^20 blocks (its body), or the response (Size2, blocks)
   * is larger than maxBodyBytes.
   */
  | "too-large"
  /**
   * A block-wise transfer broke off: a response block out of order, changed under the client (ETag), answered
   * with an error code, or an upload block answered 2.31 without saying which block it took.
   */
  | "incomplete"
  /** The request itself is not valid: an unknown method, an option too long, no transport to send with. */
  | "invalid"
  /** The layer was closed while the request waited. */
  | "closed";

/** The one error the CoAP message layer rejects client requests with; `code` says why. */
export class CoapError extends Error {
  override readonly name = "CoapError";

  constructor(
    readonly code: CoapErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
