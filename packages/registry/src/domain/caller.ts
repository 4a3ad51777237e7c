/** Roles of API callers, from most to least powerful. Viewers may only read. */
export type Role = "admin" | "operator" | "viewer";

/** Who is calling: every domain query is scoped to `tenantId`. */
export interface Caller {
  userIntId: number;
  username: string;
  tenantId: string;
  role: Role;
  /** The service administrator may manage tenants. */
  serviceAdmin: boolean;
  /** The `jti` of the bearer token this caller came with (none for application keys and internal callers). */
  tokenId?: string | undefined;
}
