/**
 * One entry of a token's `resources` claim: the holder's `management` level (db_member or
 * db_viewer) applies only to these resources of this `type` (`db`: database uids, as strings).
 * A level of `roles` that no entry names applies to every resource.
 */
export interface ResourceScope {
  management: string;
  type: string;
  uids: string[];
}

/** What rolesOn reads of a token's claims (TesseraClaims has both). */
export interface ScopedClaims {
  roles: readonly string[];
  resources?: readonly ResourceScope[];
}

/** A resource of the service that verifies the token: its type (`db`) and its uid ("1"). */
export interface Resource {
  type: string;
  uid: string;
}

/**
 * The levels of the token's `roles` that apply to `resource`: all of them, but a level that
 * the `resources` claim limits (to this type of resource) where the resource is not one it
 * names. A db_member role on database 1 and a db_viewer role on database 2 give db_member on
 * "1" and db_viewer on "2", never db_member on "2".
 */
export function rolesOn(claims: ScopedClaims, resource: Resource): string[] {
  const scopes = claims.resources ?? [];
  return claims.roles.filter((level) => {
    const limits = scopes.filter((s) => s.management === level && s.type === resource.type);
    return limits.length === 0 || limits.some((s) => s.uids.includes(resource.uid));
  });
}

/** Whether the token holds one of `roles` on `resource` (see rolesOn). */
export function hasRoleOn(claims: ScopedClaims, resource: Resource, roles: readonly string[]): boolean {
  return rolesOn(claims, resource).some((r) => roles.includes(r));
}

/** Whether a `resources` claim has the shape Tessera writes; a token with another one is refused. */
export function isResourceScopes(value: unknown): value is ResourceScope[] {
  return (
    Array.isArray(value) &&
    value.every(
      (s) =>
        s !== null &&
        typeof s === 'object' &&
        typeof s.management === 'string' &&
        typeof s.type === 'string' &&
        Array.isArray(s.uids) &&
        s.uids.every((u: unknown) => typeof u === 'string'),
    )
  );
}
