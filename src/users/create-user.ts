import { InvalidRequestError } from '../errors.js';
import type { PasswordHasher } from './password-hasher.js';
import { validateNewPassword } from './password-rules.js';
import { isRole, ROLES, type User } from './user.js';
import type { CredentialStore } from './user-store.js';
import { validateNewUsername } from './username.js';

export interface CreateUserInput {
  username: string;
  password: string;
  role: string;
  name?: string | null;
}

export async function createUser(
  deps: { credentials: CredentialStore; hasher: PasswordHasher },
  input: CreateUserInput,
): Promise<User> {
  const username = validateNewUsername(input.username);
  if (!isRole(input.role)) {
    throw new InvalidRequestError(`role must be one of: ${ROLES.join(', ')}`);
  }
  validateNewPassword(input.password);
  return deps.credentials.create({
    username,
    name: input.name ?? null,
    role: input.role,
    passwordHash: await deps.hasher.hash(input.password),
    passwordIssueDate: new Date(),
  });
}
