import Type from 'typebox';
import { InvalidRequestError } from '../errors.js';
import { StringEnum } from '../schema/string-enum.js';
import type { Role } from './management.js';

/*
 * A role's `resources` (the product's role object, 8.2): scopes that limit a db_member or
 * db_viewer role to some databases. Tessera has no databases: it stores the scopes, answers
 * them, and puts them in its tokens, so that the service that owns the databases enforces them.
 */

export const RESOURCE_TYPES = ['db'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** One scope of a role: the resources of one type it applies to. */
export interface ResourceScope {
  type: ResourceType;
  /** Their uids, as the product writes them: strings of digits, in numeric order. */
  uids: string[];
}

/** The management levels a scope may limit (objects/role.md: "a db_member or db_viewer management role"). */
export const SCOPED_LEVELS = ['db_member', 'db_viewer'] as const;
export type ScopedLevel = (typeof SCOPED_LEVELS)[number];

const isScopedLevel = (level: Role): level is ScopedLevel => (SCOPED_LEVELS as readonly Role[]).includes(level);

/** A token's `resources` entry: one level of the user's, limited to these resources. */
export interface LevelScope extends ResourceScope {
  management: ScopedLevel;
}

/** The wire shape of a role's `resources` (requests and answers). */
export const ResourceScopes = Type.Array(
  Type.Object(
    {
      type: StringEnum(RESOURCE_TYPES),
      uids: Type.Array(
        Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'a database uid: digits, as a string ("1")' }),
        {
          minItems: 1,
          // Every one rides in the tokens of the role's holders (a header: some kilobytes at most).
          maxItems: 1024,
          uniqueItems: true,
          description: 'the uids of the databases the role applies to (at most 1024)',
        },
      ),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: 16,
    description:
      'limits a db_member or db_viewer role to these databases ([{"type": "db", "uids": ["1", "2"]}]); absent or []: every database',
  },
);

const byNumber = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * A role's scopes as they are stored and answered (uids in numeric order), checked against
 * its level: refused when a type comes twice or the level is not one a scope limits.
 */
export function checkedScopes(management: Role, scopes: readonly ResourceScope[]): ResourceScope[] {
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (seen.has(scope.type))
      throw new InvalidRequestError(
        `resources: type "${scope.type}" is given twice; give each type once, with all its uids`,
      );
    seen.add(scope.type);
    if (new Set(scope.uids).size !== scope.uids.length)
      throw new InvalidRequestError(`resources: a "${scope.type}" uid is given twice`);
  }
  if (scopes.length > 0 && !isScopedLevel(management))
    throw new InvalidRequestError(
      `resources limit a db_member or db_viewer role to some databases; a role with management "${management}" takes none (send "resources": [] to clear them)`,
    );
  return scopes.map((s) => ({ type: s.type, uids: [...s.uids].sort(byNumber) }));
}

/** Whether two roles' scopes are the same (as checkedScopes writes them). */
export function sameScopes(a: readonly ResourceScope[], b: readonly ResourceScope[]): boolean {
  const key = (s: readonly ResourceScope[]) => JSON.stringify([...s].sort((x, y) => (x.type < y.type ? -1 : 1)));
  return key(a) === key(b);
}

/**
 * The scopes of a user's token, from the roles it holds (each its level and its scopes): for
 * each level a scope may limit, an entry of the union of its roles' uids of a type — only when
 * every role of that level it holds is limited to that type; one role of the level without a
 * scope gives the level on every resource, and then no entry limits it. Levels never mix: a
 * db_member role on database 1 and a db_viewer role on database 2 are two entries, so that
 * nobody is a db_member of database 2. Empty when nothing is limited.
 */
export function mergedScopes(
  roles: readonly { management: Role; resources: readonly ResourceScope[] }[],
): LevelScope[] {
  const merged: LevelScope[] = [];
  for (const management of SCOPED_LEVELS) {
    const ofLevel = roles.filter((r) => r.management === management);
    if (ofLevel.length === 0) continue;
    for (const type of RESOURCE_TYPES) {
      const scopes = ofLevel.map((r) => r.resources.find((s) => s.type === type));
      if (scopes.some((s) => s === undefined)) continue;
      const uids = [...new Set(scopes.flatMap((s) => s!.uids))].sort(byNumber);
      merged.push({ management, type, uids });
    }
  }
  return merged;
}

/** Whether a token's `resources` claim has the shape Tessera writes (a token that carries another is refused). */
export function isLevelScopes(value: unknown): value is LevelScope[] {
  return (
    Array.isArray(value) &&
    value.every(
      (s) =>
        s !== null &&
        typeof s === 'object' &&
        (SCOPED_LEVELS as readonly unknown[]).includes(s.management) &&
        (RESOURCE_TYPES as readonly unknown[]).includes(s.type) &&
        Array.isArray(s.uids) &&
        s.uids.every((u: unknown) => typeof u === 'string'),
    )
  );
}
